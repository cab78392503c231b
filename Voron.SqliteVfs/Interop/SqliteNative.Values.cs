using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Voron.SqliteVfs.Interop;

/// <summary>sqlite3_value_* (reading what SQLite passes in) and sqlite3_result_* (answering xColumn).</summary>
internal static unsafe partial class SqliteNative
{
    /// <summary>SQLITE_TRANSIENT: SQLite copies the bytes before the call returns.</summary>
    public static readonly nint Transient = -1;

    [LibraryImport(Library, EntryPoint = "sqlite3_value_type")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    public static partial int ValueType(nint value);

    [LibraryImport(Library, EntryPoint = "sqlite3_value_int64")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    public static partial long ValueInt64(nint value);

    [LibraryImport(Library, EntryPoint = "sqlite3_value_double")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    public static partial double ValueDouble(nint value);

    [LibraryImport(Library, EntryPoint = "sqlite3_value_text")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    public static partial byte* ValueText(nint value);

    [LibraryImport(Library, EntryPoint = "sqlite3_value_blob")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    public static partial byte* ValueBlob(nint value);

    [LibraryImport(Library, EntryPoint = "sqlite3_value_bytes")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    public static partial int ValueBytes(nint value);

    [LibraryImport(Library, EntryPoint = "sqlite3_value_nochange")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    public static partial int ValueNoChange(nint value);

    [LibraryImport(Library, EntryPoint = "sqlite3_result_null")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    public static partial void ResultNull(nint context);

    [LibraryImport(Library, EntryPoint = "sqlite3_result_int64")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    public static partial void ResultInt64(nint context, long value);

    [LibraryImport(Library, EntryPoint = "sqlite3_result_double")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    public static partial void ResultDouble(nint context, double value);

    [LibraryImport(Library, EntryPoint = "sqlite3_result_text")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    public static partial void ResultText(nint context, byte* utf8, int length, nint destructor);

    [LibraryImport(Library, EntryPoint = "sqlite3_result_blob")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    public static partial void ResultBlob(nint context, byte* bytes, int length, nint destructor);

    [LibraryImport(Library, EntryPoint = "sqlite3_result_zeroblob")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    public static partial void ResultZeroBlob(nint context, int length);

    [LibraryImport(Library, EntryPoint = "sqlite3_result_error")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    public static partial void ResultError(nint context, byte* utf8, int length);
}
