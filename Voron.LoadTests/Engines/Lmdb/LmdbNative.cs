using System.Runtime.InteropServices;

namespace Voron.LoadTests.Engines.Lmdb;

/// <summary>
/// The part of LMDB's C API (lmdb.h, 0.9.x) the <c>kv</c> experiment uses, bound to Debian's
/// <c>liblmdb.so.0</c> (package liblmdb0). Handles (<c>MDB_env*</c>, <c>MDB_txn*</c>,
/// <c>MDB_cursor*</c>) are plain <see cref="nint"/>s owned by <see cref="LmdbKvEngine"/> and
/// <see cref="LmdbKvReader"/>; every function returning <c>int</c> returns 0 or an error code,
/// which <see cref="Check"/> turns into an exception.
/// </summary>
/// <remarks>
/// The first call loads the library; when it is not installed that call throws
/// <see cref="DllNotFoundException"/> (<see cref="LmdbKvEngine.LibraryVersion"/> is that probe).
/// </remarks>
internal static partial class LmdbNative
{
    private const string LibraryName = "liblmdb.so.0";

    internal const int MDB_SUCCESS = 0;
    internal const int MDB_NOTFOUND = -30798;

    // mdb_env_open flags. No MDB_NOSYNC / MDB_NOMETASYNC / MDB_WRITEMAP: commits are durable.
    // MDB_NOTLS ties read transactions to the transaction object, not to the thread that began
    // it, so a reader may be opened on one thread and used on another.
    internal const uint MDB_NOTLS = 0x200000;

    // mdb_txn_begin flags.
    internal const uint MDB_RDONLY = 0x20000;

    // mdb_cursor_get operations (MDB_cursor_op).
    internal const int MDB_FIRST = 0;
    internal const int MDB_NEXT = 8;

    [LibraryImport(LibraryName)]
    internal static partial nint mdb_version(out int major, out int minor, out int patch);

    [LibraryImport(LibraryName)]
    internal static partial nint mdb_strerror(int error);

    [LibraryImport(LibraryName)]
    internal static partial int mdb_env_create(out nint env);

    [LibraryImport(LibraryName)]
    internal static partial int mdb_env_set_mapsize(nint env, nuint size);

    [LibraryImport(LibraryName)]
    internal static partial int mdb_env_set_maxreaders(nint env, uint readers);

    [LibraryImport(LibraryName, StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int mdb_env_open(nint env, string path, uint flags, uint mode);

    [LibraryImport(LibraryName)]
    internal static partial void mdb_env_close(nint env);

    [LibraryImport(LibraryName)]
    internal static partial int mdb_txn_begin(nint env, nint parent, uint flags, out nint txn);

    [LibraryImport(LibraryName)]
    internal static partial int mdb_txn_commit(nint txn);

    [LibraryImport(LibraryName)]
    internal static partial void mdb_txn_abort(nint txn);

    [LibraryImport(LibraryName, StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int mdb_dbi_open(nint txn, string? name, uint flags, out uint dbi);

    [LibraryImport(LibraryName)]
    internal static partial int mdb_put(nint txn, uint dbi, ref MdbVal key, ref MdbVal data, uint flags);

    [LibraryImport(LibraryName)]
    internal static partial int mdb_get(nint txn, uint dbi, ref MdbVal key, out MdbVal data);

    [LibraryImport(LibraryName)]
    internal static partial int mdb_cursor_open(nint txn, uint dbi, out nint cursor);

    [LibraryImport(LibraryName)]
    internal static partial int mdb_cursor_get(nint cursor, ref MdbVal key, ref MdbVal data, int operation);

    [LibraryImport(LibraryName)]
    internal static partial void mdb_cursor_close(nint cursor);

    /// <summary>Throws for a non-zero result, naming the call and LMDB's own message.</summary>
    internal static void Check(int result, string operation)
    {
        if (result != MDB_SUCCESS)
        {
            throw new InvalidOperationException(
                $"LMDB {operation} failed with {result}: {Marshal.PtrToStringUTF8(mdb_strerror(result))}");
        }
    }
}
