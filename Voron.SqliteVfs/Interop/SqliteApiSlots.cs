namespace Voron.SqliteVfs.Interop;

// EX1. A slot is the position of a function in struct sqlite3_api_routines (src/sqlite3ext.h),
//      counted in pointers from 0. SQLite only appends to that struct, never reorders it, so a
//      slot number holds for every version, and a slot added in version V is present iff
//      sqlite3_libversion_number() >= V. The newest slots used here (vtab_rhs_value,
//      vtab_distinct, vtab_in, vtab_in_first, vtab_in_next: 257-261) came with 3.38.0, the
//      minimum the extension accepts (SqliteVersionRule): above it every slot below is present.
//      The numbers were read from sqlite3ext.h (3.40.1 and the current trunk agree) with
//      offsetof(sqlite3_api_routines, name) / sizeof(void*); SqliteNativeBindingTests repeats a few.

/// <summary>Export names and sqlite3_api_routines slots (EX1) of every function <see cref="SqliteNative"/> binds.</summary>
internal static class SqliteApiSlots
{
    /// <summary>Not in the table: SQLite is initialized before it loads an extension.</summary>
    public static readonly SqliteFunction Initialize = new("sqlite3_initialize", -1);
    public static readonly SqliteFunction DeclareVtab = new("sqlite3_declare_vtab", 50);
    public static readonly SqliteFunction ErrorMessage = new("sqlite3_errmsg", 53);
    public static readonly SqliteFunction Free = new("sqlite3_free", 58);
    public static readonly SqliteFunction LibVersionNumber = new("sqlite3_libversion_number", 67);
    public static readonly SqliteFunction Malloc = new("sqlite3_malloc", 68);
    public static readonly SqliteFunction ResultBlob = new("sqlite3_result_blob", 78);
    public static readonly SqliteFunction ResultDouble = new("sqlite3_result_double", 79);
    public static readonly SqliteFunction ResultError = new("sqlite3_result_error", 80);
    public static readonly SqliteFunction ResultInt64 = new("sqlite3_result_int64", 83);
    public static readonly SqliteFunction ResultNull = new("sqlite3_result_null", 84);
    public static readonly SqliteFunction ResultText = new("sqlite3_result_text", 85);
    public static readonly SqliteFunction ValueBlob = new("sqlite3_value_blob", 102);
    public static readonly SqliteFunction ValueBytes = new("sqlite3_value_bytes", 103);
    public static readonly SqliteFunction ValueDouble = new("sqlite3_value_double", 105);
    public static readonly SqliteFunction ValueInt64 = new("sqlite3_value_int64", 107);
    public static readonly SqliteFunction ValueText = new("sqlite3_value_text", 109);
    public static readonly SqliteFunction ValueType = new("sqlite3_value_type", 113);
    public static readonly SqliteFunction CreateModuleV2 = new("sqlite3_create_module_v2", 119);
    public static readonly SqliteFunction FileControl = new("sqlite3_file_control", 127);
    public static readonly SqliteFunction VfsFind = new("sqlite3_vfs_find", 141);
    public static readonly SqliteFunction VfsRegister = new("sqlite3_vfs_register", 142);
    public static readonly SqliteFunction VfsUnregister = new("sqlite3_vfs_unregister", 143);
    public static readonly SqliteFunction ResultZeroBlob = new("sqlite3_result_zeroblob", 145);
    public static readonly SqliteFunction NextStmt = new("sqlite3_next_stmt", 152);
    public static readonly SqliteFunction CreateFunctionV2 = new("sqlite3_create_function_v2", 162);
    /// <summary>Variadic in C (SqliteNative.VtabConfig).</summary>
    public static readonly SqliteFunction VtabConfig = new("sqlite3_vtab_config", 177);
    public static readonly SqliteFunction VtabOnConflict = new("sqlite3_vtab_on_conflict", 178);
    public static readonly SqliteFunction StmtBusy = new("sqlite3_stmt_busy", 184);
    public static readonly SqliteFunction AutoExtension = new("sqlite3_auto_extension", 192);
    public static readonly SqliteFunction VtabNoChange = new("sqlite3_vtab_nochange", 222);
    public static readonly SqliteFunction ValueNoChange = new("sqlite3_value_nochange", 223);
    public static readonly SqliteFunction VtabCollation = new("sqlite3_vtab_collation", 224);
    public static readonly SqliteFunction VtabRhsValue = new("sqlite3_vtab_rhs_value", 257);
    public static readonly SqliteFunction VtabDistinct = new("sqlite3_vtab_distinct", 258);
    public static readonly SqliteFunction VtabIn = new("sqlite3_vtab_in", 259);
    public static readonly SqliteFunction VtabInFirst = new("sqlite3_vtab_in_first", 260);
    public static readonly SqliteFunction VtabInNext = new("sqlite3_vtab_in_next", 261);
}
