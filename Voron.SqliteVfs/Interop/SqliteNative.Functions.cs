namespace Voron.SqliteVfs.Interop;

/// <summary>SQL functions (sqlite3_create_function_v2): the extension's voron_open and voron_close.</summary>
internal static unsafe partial class SqliteNative
{
    private static delegate* unmanaged[Cdecl]<nint, byte*, int, int, void*, void*, void*, void*, void*, int> s_createFunction;

    /// <summary>
    /// Registers a scalar function: <paramref name="function"/> is really
    /// <c>void(*)(sqlite3_context*, int, sqlite3_value**)</c>; no step, final or destructor.
    /// </summary>
    public static int CreateFunction(nint db, byte* name, int arguments, int textEncodingAndFlags, void* clientData, void* function) =>
        s_createFunction(db, name, arguments, textEncodingAndFlags, clientData, function, null, null, null);
}
