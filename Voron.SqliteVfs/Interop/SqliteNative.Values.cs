namespace Voron.SqliteVfs.Interop;

/// <summary>sqlite3_value_* (reading what SQLite passes in) and sqlite3_result_* (answering xColumn and SQL functions).</summary>
internal static unsafe partial class SqliteNative
{
    /// <summary>SQLITE_TRANSIENT: SQLite copies the bytes before the call returns.</summary>
    public static readonly nint Transient = -1;

    private static delegate* unmanaged[Cdecl]<nint, int> s_valueType;
    private static delegate* unmanaged[Cdecl]<nint, long> s_valueInt64;
    private static delegate* unmanaged[Cdecl]<nint, double> s_valueDouble;
    private static delegate* unmanaged[Cdecl]<nint, byte*> s_valueText;
    private static delegate* unmanaged[Cdecl]<nint, byte*> s_valueBlob;
    private static delegate* unmanaged[Cdecl]<nint, int> s_valueBytes;
    private static delegate* unmanaged[Cdecl]<nint, int> s_valueNoChange;
    private static delegate* unmanaged[Cdecl]<nint, void> s_resultNull;
    private static delegate* unmanaged[Cdecl]<nint, long, void> s_resultInt64;
    private static delegate* unmanaged[Cdecl]<nint, double, void> s_resultDouble;
    private static delegate* unmanaged[Cdecl]<nint, byte*, int, nint, void> s_resultText;
    private static delegate* unmanaged[Cdecl]<nint, byte*, int, nint, void> s_resultBlob;
    private static delegate* unmanaged[Cdecl]<nint, int, void> s_resultZeroBlob;
    private static delegate* unmanaged[Cdecl]<nint, byte*, int, void> s_resultError;

    public static int ValueType(nint value) => s_valueType(value);

    public static long ValueInt64(nint value) => s_valueInt64(value);

    public static double ValueDouble(nint value) => s_valueDouble(value);

    public static byte* ValueText(nint value) => s_valueText(value);

    public static byte* ValueBlob(nint value) => s_valueBlob(value);

    public static int ValueBytes(nint value) => s_valueBytes(value);

    public static int ValueNoChange(nint value) => s_valueNoChange(value);

    public static void ResultNull(nint context) => s_resultNull(context);

    public static void ResultInt64(nint context, long value) => s_resultInt64(context, value);

    public static void ResultDouble(nint context, double value) => s_resultDouble(context, value);

    public static void ResultText(nint context, byte* utf8, int length, nint destructor) => s_resultText(context, utf8, length, destructor);

    public static void ResultBlob(nint context, byte* bytes, int length, nint destructor) => s_resultBlob(context, bytes, length, destructor);

    public static void ResultZeroBlob(nint context, int length) => s_resultZeroBlob(context, length);

    public static void ResultError(nint context, byte* utf8, int length) => s_resultError(context, utf8, length);
}
