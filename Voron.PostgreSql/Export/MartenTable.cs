using System.Text;
using Npgsql;

namespace Voron.PostgreSql.Export;

/// <summary>
/// The table Marten (9.x) makes for a document type whose id is a string, as read from the DDL
/// Marten itself runs (<c>pg_dump -s</c> of a database Marten created; docs/postgresql.md):
/// <code>
/// COLUMN            TYPE                       NULL      DEFAULT (Marten's)              FROM THE STORE
/// id                character varying          NOT NULL                                  the document's id
/// data              jsonb                      NOT NULL                                  its JSON, with the id (PE5)
/// mt_last_modified  timestamp with time zone   NULL      transaction_timestamp()         its last-modified time
/// mt_version        uuid                       NOT NULL  md5(random()||clock...)::uuid   its version, as 00000000-0000-0000-hhhh-hhhhhhhhhhhh
/// mt_dotnet_type    character varying          NULL                                      the options' type name, or NULL
/// PRIMARY KEY (id), named pkey_&lt;table&gt;_id
/// </code>
/// Marten only reads <c>mt_dotnet_type</c> for information, and uses <c>mt_version</c> for
/// optimistic concurrency by equality, so a version made from the store's (a number) serves.
/// </summary>
internal static class MartenTable
{
    /// <summary>The columns in COPY order, with the type information_schema names.</summary>
    internal static readonly (string Name, string Type, bool NotNull)[] Columns =
    [
        ("id", "character varying", true),
        ("data", "jsonb", true),
        ("mt_last_modified", "timestamp with time zone", false),
        ("mt_version", "uuid", true),
        ("mt_dotnet_type", "character varying", false),
    ];

    /// <summary>PostgreSQL's identifier limit in bytes (NAMEDATALEN - 1); a longer name would be cut silently.</summary>
    public const int MaxIdentifierBytes = 63;

    public static string DefaultName(string collection)
    {
        var name = new StringBuilder("mt_doc_", 7 + collection.Length);
        foreach (var c in collection)
        {
            name.Append(char.IsAsciiLetterOrDigit(c) ? char.ToLowerInvariant(c) : '_');
        }

        return name.ToString();
    }

    /// <summary>An identifier quoted for SQL text (double quotes, inner ones doubled); <see cref="ArgumentException"/> when PostgreSQL would cut or refuse it.</summary>
    public static string Quote(string identifier, string what)
    {
        if (identifier.Length == 0 || identifier.Contains('\0', StringComparison.Ordinal))
        {
            throw new ArgumentException($"The {what} name '{identifier}' cannot be a PostgreSQL identifier (empty, or it holds NUL).");
        }

        if (Encoding.UTF8.GetByteCount(identifier) > MaxIdentifierBytes)
        {
            throw new ArgumentException($"The {what} name '{identifier}' is longer than PostgreSQL's {MaxIdentifierBytes} bytes and would be cut; choose a shorter one (PostgreSqlExportOptions.TableName, voron export --table-prefix).");
        }

        return "\"" + identifier.Replace("\"", "\"\"", StringComparison.Ordinal) + "\"";
    }

    /// <summary>The statement that makes the table (Marten's layout, above).</summary>
    public static string CreateSql(string schema, string table) =>
        $"""
        CREATE TABLE {Quote(schema, "schema")}.{Quote(table, "table")} (
            id character varying NOT NULL,
            data jsonb NOT NULL,
            mt_last_modified timestamp with time zone DEFAULT transaction_timestamp(),
            mt_version uuid NOT NULL DEFAULT (md5(random()::text || clock_timestamp()::text))::uuid,
            mt_dotnet_type character varying,
            CONSTRAINT {Quote(TrimToIdentifier("pkey_" + table + "_id"), "constraint")} PRIMARY KEY (id)
        )
        """;

    /// <summary>The COPY statement the rows go through.</summary>
    public static string CopySql(string schema, string table) =>
        $"COPY {Quote(schema, "schema")}.{Quote(table, "table")} (id, data, mt_last_modified, mt_version, mt_dotnet_type) FROM STDIN (FORMAT BINARY)";

    /// <summary>Marten's version column for the store's version <paramref name="version"/>: its 16 hex digits in the last two groups.</summary>
    public static Guid Version(long version) =>
        Guid.ParseExact($"00000000-0000-0000-{(ulong)version >> 48:x4}-{(ulong)version & 0xFFFF_FFFF_FFFFUL:x12}", "D");

    /// <summary>Whether the table exists.</summary>
    public static async Task<bool> ExistsAsync(NpgsqlConnection connection, string schema, string table, CancellationToken cancellationToken)
    {
        await using var command = new NpgsqlCommand("SELECT EXISTS (SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = $2)", connection);
        command.Parameters.Add(new NpgsqlParameter { Value = schema });
        command.Parameters.Add(new NpgsqlParameter { Value = table });
        return (bool)(await command.ExecuteScalarAsync(cancellationToken).ConfigureAwait(false))!;
    }

    /// <summary>
    /// What keeps an existing table from taking the rows (PE3): a column of the layout missing or
    /// of another type or nullability, or a column of its own that COPY cannot leave out (NOT NULL
    /// without a default). Empty when it fits.
    /// </summary>
    public static async Task<List<string>> LayoutProblemsAsync(NpgsqlConnection connection, string schema, string table, CancellationToken cancellationToken)
    {
        var found = new Dictionary<string, (string Type, bool NotNull, bool HasDefault)>(StringComparer.Ordinal);
        await using (var command = new NpgsqlCommand(
            "SELECT column_name, data_type, is_nullable = 'NO', column_default IS NOT NULL FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position",
            connection))
        {
            command.Parameters.Add(new NpgsqlParameter { Value = schema });
            command.Parameters.Add(new NpgsqlParameter { Value = table });
            await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
            while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
            {
                found[reader.GetString(0)] = (reader.GetString(1), reader.GetBoolean(2), reader.GetBoolean(3));
            }
        }

        var problems = new List<string>();
        foreach (var (name, type, notNull) in Columns)
        {
            if (!found.Remove(name, out var column))
            {
                problems.Add($"it has no column {name} ({type})");
            }
            else if (column.Type != type)
            {
                problems.Add($"its column {name} is {column.Type}, not {type}");
            }
            else if (notNull && !column.NotNull)
            {
                problems.Add($"its column {name} allows NULL (Marten's is NOT NULL)");
            }
        }

        foreach (var (name, column) in found)
        {
            if (column.NotNull && !column.HasDefault)
            {
                problems.Add($"it has a column {name} ({column.Type}, NOT NULL, no default) that the export cannot fill");
            }
        }

        return problems;
    }

    /// <summary>Rows in the table.</summary>
    public static async Task<long> CountAsync(NpgsqlConnection connection, string schema, string table, CancellationToken cancellationToken)
    {
        await using var command = new NpgsqlCommand($"SELECT count(*) FROM {Quote(schema, "schema")}.{Quote(table, "table")}", connection);
        return (long)(await command.ExecuteScalarAsync(cancellationToken).ConfigureAwait(false))!;
    }

    private static string TrimToIdentifier(string name)
    {
        while (Encoding.UTF8.GetByteCount(name) > MaxIdentifierBytes)
        {
            name = name[..^1];
        }

        return name;
    }
}
