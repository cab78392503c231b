namespace Voron.SqliteVfs.Interop.VirtualTables;

/// <summary>xColumn's sqlite3_context*: set exactly one result (values are copied: SQLITE_TRANSIENT).</summary>
internal readonly unsafe struct ResultContext(nint handle)
{
    public nint Handle { get; } = handle;

    /// <summary>sqlite3_vtab_nochange: true while SQLite fetches a column for an UPDATE that does not change it (answer nothing, cheaply).</summary>
    public bool NoChange => SqliteNative.VtabNoChange(Handle) != 0;

    public void SetNull() => SqliteNative.ResultNull(Handle);

    public void SetInt64(long value) => SqliteNative.ResultInt64(Handle, value);

    public void SetDouble(double value) => SqliteNative.ResultDouble(Handle, value);

    public void SetText(ReadOnlySpan<byte> utf8)
    {
        // An empty span's pointer may be null, and sqlite3_result_text(NULL) answers NULL, not '':
        // point at a real byte and pass length 0.
        byte empty = 0;
        fixed (byte* p = utf8)
        {
            SqliteNative.ResultText(Handle, utf8.IsEmpty ? &empty : p, utf8.Length, SqliteNative.Transient);
        }
    }

    public void SetText(string text)
    {
        ArgumentNullException.ThrowIfNull(text);
        SetText(System.Text.Encoding.UTF8.GetBytes(text));
    }

    public void SetBlob(ReadOnlySpan<byte> bytes)
    {
        if (bytes.IsEmpty)
        {
            SqliteNative.ResultZeroBlob(Handle, 0); // sqlite3_result_blob(NULL, 0) would answer NULL, not an empty blob
            return;
        }

        fixed (byte* p = bytes)
        {
            SqliteNative.ResultBlob(Handle, p, bytes.Length, SqliteNative.Transient);
        }
    }

    public void SetError(string message)
    {
        var bytes = System.Text.Encoding.UTF8.GetBytes(message ?? string.Empty);
        byte empty = 0;
        fixed (byte* p = bytes)
        {
            SqliteNative.ResultError(Handle, bytes.Length == 0 ? &empty : p, bytes.Length);
        }
    }
}
