namespace Voron.SqliteVfs.Interop.VirtualTables;

/// <summary>xColumn's sqlite3_context*: set exactly one result (values are copied: SQLITE_TRANSIENT).</summary>
internal readonly unsafe struct ResultContext(nint handle)
{
    public nint Handle { get; } = handle;

    /// <summary>sqlite3_vtab_nochange: true while SQLite fetches a column for an UPDATE that does not change it (answer nothing, cheaply).</summary>
    public bool NoChange => throw new NotImplementedException();

    public void SetNull() => throw new NotImplementedException();

    public void SetInt64(long value) => throw new NotImplementedException();

    public void SetDouble(double value) => throw new NotImplementedException();

    public void SetText(ReadOnlySpan<byte> utf8) => throw new NotImplementedException();

    public void SetText(string text) => throw new NotImplementedException();

    public void SetBlob(ReadOnlySpan<byte> bytes) => throw new NotImplementedException();

    public void SetError(string message) => throw new NotImplementedException();
}
