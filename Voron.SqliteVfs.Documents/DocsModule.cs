using Voron.SqliteVfs.Databases;
using Voron.SqliteVfs.Interop;
using Voron.SqliteVfs.Interop.VirtualTables;
using Voron.SqliteVfs.Vfs;

namespace Voron.SqliteVfs.Documents;

/// <summary>
/// The <c>voron_docs</c> module (SD1): <c>CREATE VIRTUAL TABLE orders USING voron_docs(Order,
/// customer='$.customer' TEXT, ...)</c> on a database of a Voron VFS whose registration has a
/// DocumentStore bound (<c>registration.UseDocuments(store)</c>, <see cref="DocumentsRegistration"/>).
/// </summary>
internal sealed class DocsModule : VirtualTableModule
{
    public const string ModuleName = "voron_docs";

    public override string Name => ModuleName;

    public override VirtualTable Connect(VirtualTableContext context, bool create)
    {
        TableSpec spec;
        try
        {
            spec = TableSpec.Parse(context.Arguments);
        }
        catch (ArgumentException e)
        {
            throw new VirtualTableException(SqliteConstants.Error, e.Message, e);
        }

        var (file, store) = Resolve(context, ModuleName);
        return new DocsTable(store, file, spec, context.TableName, context.Db);
    }

    /// <summary>The database file and document store behind a table of schema <paramref name="context"/>.Schema, or an error saying what is missing.</summary>
    internal static (DatabaseFile File, Voron.Documents.DocumentStore Store) Resolve(VirtualTableContext context, string module)
    {
        var schema = context.Schema == "temp" ? "main" : context.Schema;
        if (VirtualTableRegistry.VoronFileOf(context.Db, schema) is not DatabaseFile file)
        {
            throw new VirtualTableException(SqliteConstants.Error,
                $"{module} needs a database on a Voron VFS (Data Source=<name>;Vfs=voron, after VoronSqlite.Register(...).UseDocuments(store)); database '{schema}' of this connection is not one.");
        }

        var store = (file.Owner?.Documents as DocumentHook)?.DocumentStore ?? throw new VirtualTableException(SqliteConstants.Error,
            $"{module}: Vfs={file.Owner?.Name} has no document store bound. Call registration.UseDocuments(documentStore) once after VoronSqlite.Register, before opening connections.");
        if (store.IsDisposed)
        {
            throw new VirtualTableException(SqliteConstants.Error, $"{module}: the document store bound to Vfs={file.Owner!.Name} is disposed.");
        }

        return (file, store);
    }
}

/// <summary>The eponymous, read-only <c>voron_collection('Order')</c>: every document of a collection (SD1).</summary>
internal sealed class CollectionModule : VirtualTableModule
{
    public const string ModuleName = "voron_collection";

    public override string Name => ModuleName;

    public override bool EponymousOnly => true;

    public override VirtualTable Connect(VirtualTableContext context, bool create)
    {
        var (file, store) = DocsModule.Resolve(context, ModuleName);
        return new DocsTable(store, file, TableSpec.CollectionFunction, ModuleName, context.Db);
    }
}
