using Voron.Documents;
using Voron.PostgreSql.Export;

namespace Voron.PostgreSql;

// Design notes — leaving for PostgreSQL (docs/postgresql.md).
//
// Each collection of a document store becomes one table in the layout Marten gives a document
// type with a string id (Export/MartenTable.cs has the columns), filled through Npgsql's binary
// COPY. A Marten application whose document type is named after the collection (class User for
// the collection User, table mt_doc_user) loads and queries the rows as its own documents.
//
// Resuming: a progress table (Export/ProgressTable.cs) keyed by collection holds the last id
// written and the rows written. The other way — COPY a whole collection into a staging table in
// one transaction and rename it at the end — was not taken: an interruption would throw away
// everything copied of the collection so far, and a large collection would keep one transaction
// open for its whole copy. Batches keep the work lost to an interruption to one batch.
//
//   PE1. A batch's rows and the progress row that counts them commit in one PostgreSQL
//        transaction: after any interruption the progress row names exactly the rows the table
//        holds, so a resumed export neither loses nor repeats a document.
//   PE2. Documents are written in ascending id order (UTF-8 byte order, the store's own order),
//        and a resumed export writes only ids above the progress row's last id; a document out of
//        order stops the export (never a silent duplicate or gap).
//   PE3. A table the export did not create (no progress row) is written into only when it has
//        Marten's layout and no rows; one with another layout or with rows is refused, naming the
//        difference, before anything is written.
//   PE4. When a collection is finished, the table's count(*), the progress row's count and the
//        documents the store's snapshot held (written now or by the run that was interrupted)
//        must all be equal; otherwise the export fails naming the three numbers.
//   PE5. The data column carries the document's id in its id property (Id unless the options
//        say otherwise): Marten deserializes a document from the data column alone, while the
//        store keeps the id beside the JSON. Every other byte of the document goes as stored.

/// <summary>
/// Writes the collections of a <see cref="DocumentStore"/> into PostgreSQL, one table per
/// collection in the layout Marten reads (<c>mt_doc_&lt;collection in lower case&gt;</c>: id, data
/// jsonb, mt_last_modified, mt_version, mt_dotnet_type), through Npgsql's binary COPY. Resumes
/// after an interruption and checks row counts at the end (docs/postgresql.md).
/// </summary>
public static class PostgreSqlExport
{
    /// <summary>
    /// Exports every collection of <paramref name="store"/> (or only <see cref="PostgreSqlExportOptions.Collection"/>)
    /// to the database <paramref name="connectionString"/> names: a <c>postgresql://user:password@host:port/database</c>
    /// URI or an Npgsql connection string (<c>Host=...;Database=...</c>). Run it again after an
    /// interruption and it goes on from the last batch that committed.
    /// </summary>
    /// <exception cref="ArgumentException">The connection string cannot be read.</exception>
    /// <exception cref="PostgreSqlExportException">
    /// The server cannot be reached or refuses the login, a table exists with another layout or
    /// holds rows this export did not write, or the row counts differ at the end.
    /// </exception>
    public static Task<PostgreSqlExportResult> ExportAsync(DocumentStore store, string connectionString, PostgreSqlExportOptions? options = null,
        CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(store);
        ArgumentNullException.ThrowIfNull(connectionString);
        var npgsql = ConnectionStrings.ToNpgsql(connectionString);
        return Exporter.RunAsync(store, npgsql, options ?? new PostgreSqlExportOptions(), cancellationToken);
    }

    /// <summary>The table a collection goes to by default: <c>mt_doc_</c> and the collection's name in lower case, every character that is not a letter, digit or _ made _ (Marten's alias of a type named like the collection).</summary>
    public static string DefaultTableName(string collection)
    {
        ArgumentNullException.ThrowIfNull(collection);
        return MartenTable.DefaultName(collection);
    }
}
