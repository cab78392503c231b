namespace Voron.SqliteVfs.Interop.VirtualTables;

/// <summary>SQLite's fundamental types (sqlite3_value_type).</summary>
internal enum SqliteType
{
    Integer = 1,
    Float = 2,
    Text = 3,
    Blob = 4,
    Null = 5,
}

/// <summary>A sqlite3_value* SQLite passed in; valid only during the callback that received it.</summary>
internal readonly unsafe struct SqliteValue(nint handle)
{
    public nint Handle { get; } = handle;

    public SqliteType Type => throw new NotImplementedException();

    public bool IsNull => Type == SqliteType.Null;

    public long Int64 => throw new NotImplementedException();

    public double Double => throw new NotImplementedException();

    /// <summary>The value as UTF-8 text (sqlite3_value_text + sqlite3_value_bytes; converts numbers as SQLite does).</summary>
    public ReadOnlySpan<byte> Utf8 => throw new NotImplementedException();

    public string Text => throw new NotImplementedException();

    public ReadOnlySpan<byte> Blob => throw new NotImplementedException();

    /// <summary>sqlite3_value_nochange: in xUpdate, the column was not changed by the UPDATE (its xColumn answered with <see cref="ResultContext.NoChange"/>).</summary>
    public bool NoChange => throw new NotImplementedException();

    /// <summary>The values of an IN list handed whole to xFilter (sqlite3_vtab_in_first / _next), converted by <paramref name="read"/>.</summary>
    public List<T> InValues<T>(Func<SqliteValue, T> read) => throw new NotImplementedException();
}
