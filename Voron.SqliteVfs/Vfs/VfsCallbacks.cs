using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Voron.SqliteVfs.Interop;
using Voron.SqliteVfs.Databases;

namespace Voron.SqliteVfs.Vfs;

/// <summary>
/// The sqlite3_vfs entry points this VFS implements itself (the OS services come from the
/// default VFS: NativeVfs.Allocate; absolute paths are the default VFS's files: OsFiles, V12).
/// Every exception becomes a result code.
/// </summary>
internal static unsafe class VfsCallbacks
{
    private const int KindMask = SqliteConstants.OpenMainDb | SqliteConstants.OpenTempDb | SqliteConstants.OpenTransientDb |
                                 SqliteConstants.OpenMainJournal | SqliteConstants.OpenTempJournal | SqliteConstants.OpenSubJournal |
                                 SqliteConstants.OpenSuperJournal | SqliteConstants.OpenWal;

    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    public static int Open(SqliteVfsStruct* vfs, byte* name, SqliteFile* file, int flags, int* outFlags)
    {
        file->Methods = null; // SQLite calls xClose only when this is set (on success)
        file->Handle = 0;
        try
        {
            var owner = NativeVfs.From(vfs);
            var storeName = owner?.DatabaseName(name);
            if (name != null && storeName == null && OsFiles.IsOsPath(name))
            {
                return OsFiles.Open(name, file, flags, outFlags); // V12: an OS file outside the store
            }

            if (owner == null)
            {
                return SqliteConstants.CantOpen;
            }

            VfsFile opened;
            switch (flags & KindMask)
            {
                case SqliteConstants.OpenWal:
                    return SqliteConstants.CantOpen; // V11
                case SqliteConstants.OpenMainDb when storeName != null:
                    var databaseName = storeName;
                    DatabaseNames.Validate(databaseName);
                    var database = owner.Databases.Get(databaseName);
                    if (((flags & SqliteConstants.OpenCreate) == 0 || owner.ReadReplica) && !database.Exists())
                    {
                        if (owner.ReadReplica)
                        {
                            ErrorCodes.Note(ReadReplicaException.Missing(owner.Environment, owner.Name, databaseName)); // V18: never an empty database
                        }

                        return SqliteConstants.CantOpen;
                    }

                    opened = new DatabaseFile(database, owner.Options, owner.Name, (flags & SqliteConstants.OpenReadOnly) != 0, owner.ReadReplica);
                    break;
                case SqliteConstants.OpenMainJournal when owner.ReadReplica && storeName != null:
                    // V18: a database of a replica is never written, so it never needs a rollback journal.
                    ErrorCodes.Note(ReadReplicaException.Write(owner.Environment, owner.Name, storeName.EndsWith("-journal", StringComparison.Ordinal) ? storeName[..^"-journal".Length] : storeName));
                    return SqliteConstants.ReadOnly;
                default:
                    opened = new MemoryFile(); // V11: journals, temporary and transient files
                    break;
            }

            opened.Owner = owner;
            owner.FileOpened();
            file->Handle = GCHandle.ToIntPtr(GCHandle.Alloc(opened));
            file->Methods = IoCallbacks.Methods;
            if (outFlags != null)
            {
                *outFlags = flags;
            }

            return SqliteConstants.Ok;
        }
        catch (Exception e)
        {
            return ErrorCodes.From(e, SqliteConstants.CantOpen);
        }
    }

    /// <summary>Only journals and temporary files are ever deleted, and they live in memory (V11), or are OS files (V12).</summary>
    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    public static int Delete(SqliteVfsStruct* vfs, byte* name, int syncDirectory)
    {
        try
        {
            var owner = NativeVfs.From(vfs);
            return owner?.DatabaseName(name) == null && OsFiles.IsOsPath(name) ? OsFiles.Delete(name, syncDirectory) : SqliteConstants.Ok;
        }
        catch (Exception e)
        {
            return ErrorCodes.From(e, SqliteConstants.IoErrDelete);
        }
    }

    /// <summary>
    /// V1: SQLite's busy handler sleeps here between attempts at a lock (sqlite3_busy_timeout's
    /// handler calls the connection's VFS). After a refused xLock(RESERVED) the sleep waits in
    /// line for the write lock and ends early when the lock is handed over; any other sleep is
    /// the default VFS's.
    /// </summary>
    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    public static int Sleep(SqliteVfsStruct* vfs, int microseconds)
    {
        try
        {
            return DatabaseFile.SleepInLine(TimeSpan.FromMicroseconds(Math.Max(0, microseconds))) ? microseconds : OsFiles.Sleep(microseconds);
        }
        catch (Exception e)
        {
            ErrorCodes.From(e, SqliteConstants.IoErr);
            return 0;
        }
    }

    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    public static int Access(SqliteVfsStruct* vfs, byte* name, int flags, int* result)
    {
        try
        {
            *result = 0;
            var owner = NativeVfs.From(vfs);
            var text = owner?.DatabaseName(name);
            if (text == null && OsFiles.IsOsPath(name))
            {
                return OsFiles.Access(name, flags, result); // V12
            }

            if (owner == null || text == null || DatabaseNames.IsJournalName(text) || DatabaseNames.Problem(text) != null)
            {
                return SqliteConstants.Ok; // V11: no journal ever exists, so no hot journal is replayed (asked at every SHARED)
            }

            *result = owner.Databases.Get(text).Exists() ? 1 : 0;
            return SqliteConstants.Ok;
        }
        catch (Exception e)
        {
            return ErrorCodes.From(e, SqliteConstants.IoErrAccess);
        }
    }

    /// <summary>
    /// V12: a database's full pathname is the store's directory, <see cref="DatabaseNames.FullPathDirectory"/>
    /// and its name: it is what sqlite3_db_filename and SqliteConnection.DataSource report, and it
    /// names no OS file (that directory is never created), so a tool that deletes "the database
    /// file" deletes nothing.
    /// </summary>
    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    public static int FullPathname(SqliteVfsStruct* vfs, byte* name, int size, byte* output)
    {
        try
        {
            var owner = NativeVfs.From(vfs);
            var text = owner?.DatabaseName(name);
            if (text == null && OsFiles.IsOsPath(name))
            {
                return OsFiles.FullPathname(name, size, output); // V12
            }

            if (owner == null)
            {
                return SqliteConstants.CantOpen;
            }

            DatabaseNames.Validate(text);
            var full = System.Text.Encoding.UTF8.GetBytes(owner.FullPathPrefix + text + "\0");
            if (full.Length > size)
            {
                return SqliteConstants.CantOpen;
            }

            full.CopyTo(new Span<byte>(output, size));
            return SqliteConstants.Ok;
        }
        catch (Exception e)
        {
            return ErrorCodes.From(e, SqliteConstants.CantOpen);
        }
    }
}
