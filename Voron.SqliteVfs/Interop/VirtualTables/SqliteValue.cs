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

    public SqliteType Type => (SqliteType)SqliteNative.ValueType(Handle);

    public bool IsNull => Type == SqliteType.Null;

    public long Int64 => SqliteNative.ValueInt64(Handle);

    public double Double => SqliteNative.ValueDouble(Handle);

    /// <summary>The value as UTF-8 text (sqlite3_value_text + sqlite3_value_bytes; converts numbers as SQLite does).</summary>
    public ReadOnlySpan<byte> Utf8
    {
        get
        {
            var text = SqliteNative.ValueText(Handle); // text before bytes: bytes then counts the converted text
            return text == null ? default : new ReadOnlySpan<byte>(text, SqliteNative.ValueBytes(Handle));
        }
    }

    public string Text => System.Text.Encoding.UTF8.GetString(Utf8);

    public ReadOnlySpan<byte> Blob
    {
        get
        {
            var blob = SqliteNative.ValueBlob(Handle);
            return blob == null ? default : new ReadOnlySpan<byte>(blob, SqliteNative.ValueBytes(Handle));
        }
    }

    /// <summary>sqlite3_value_nochange: in xUpdate, the column was not changed by the UPDATE (its xColumn answered with <see cref="ResultContext.NoChange"/>).</summary>
    public bool NoChange => SqliteNative.ValueNoChange(Handle) != 0;

    /// <summary>The values of an IN list handed whole to xFilter (sqlite3_vtab_in_first / _next), converted by <paramref name="read"/>.</summary>
    public List<T> InValues<T>(Func<SqliteValue, T> read)
    {
        ArgumentNullException.ThrowIfNull(read);
        var values = new List<T>();
        nint value;
        var rc = SqliteNative.VtabInFirst(Handle, &value);
        while (rc == SqliteConstants.Ok)
        {
            values.Add(read(new SqliteValue(value)));
            rc = SqliteNative.VtabInNext(Handle, &value);
        }

        return rc == SqliteConstants.Done
            ? values
            : throw new VirtualTableException(rc, $"sqlite3_vtab_in_first/_next failed with code {rc}: the value is not an IN list handed whole to xFilter (IndexInfo.TryUseInList).");
    }
}
