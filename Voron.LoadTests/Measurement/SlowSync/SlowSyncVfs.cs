using System.Collections.Concurrent;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Voron.LoadTests.Measurement.Interop;

namespace Voron.LoadTests.Measurement.SlowSync;

/// <summary>
/// A SQLite VFS that is SQLite's default one (the OS's files: "unix" on Linux) with every xSync
/// made slower by a fixed delay: the simulated slower disk (<see cref="SimulatedDisk"/>) for stock
/// SQLite, used through <c>Vfs=</c><see cref="Name"/> in the connection string. The delay falls
/// where SQLite's fsync falls, inside whatever lock SQLite holds there: a commit's WAL sync inside
/// its write lock, a checkpoint's syncs of the WAL and of the database file inside the checkpoint,
/// a rollback journal's syncs alike. Nothing else changes: the files are the default VFS's, so a
/// database written through this VFS is an ordinary SQLite database.
/// <para>
/// Its rules, cited by number in the code below:
/// 1. Every io method and every VFS method is passed on to the default VFS (its own object as
///    the first argument: the unix VFS reads its pAppData in xOpen) with nothing changed, except
///    xSync, which sleeps <see cref="Delay"/> first (<see cref="PreciseSleep"/>: at least the
///    delay, never less) and is counted in <see cref="Syncs"/>.
/// 2. A file's io methods are of the inner file's version (1, 2 or 3), so SQLite asks for shared
///    memory or memory-mapped reads exactly when the default VFS offers them.
/// 3. The native structs (the VFS, its name, the io methods) are never freed: SQLite keeps a
///    registered VFS for the process's life, and a pooled connection may call it at any time.
///    Instances are few: one per distinct delay (<see cref="For"/>), plus the tests' own.
/// 4. Native code calls in only through <see cref="Callbacks"/>: xOpen and xSync run managed
///    code and catch every exception, turning it into a SQLite error code; the other methods
///    only find the inner VFS or file (a GCHandle that is never freed, or a fixed offset) and
///    call its method, which cannot throw a managed exception.
/// </para>
/// </summary>
internal sealed unsafe partial class SlowSyncVfs
{
    private static readonly ConcurrentDictionary<long, SlowSyncVfs> ByDelay = new();
    private static readonly Lock Registering = new();

    private readonly SqliteVfsStruct* _inner;
    private long _syncs;

    private SlowSyncVfs(string name, TimeSpan delay, SqliteVfsStruct* inner)
    {
        Name = name;
        Delay = delay;
        _inner = inner;
    }

    /// <summary>The name to put in a connection string: <c>Vfs=</c> this.</summary>
    public string Name { get; }

    /// <summary>What every xSync waits before the real one.</summary>
    public TimeSpan Delay { get; }

    /// <summary>xSync calls so far, on every file of this VFS (WAL, database, journals).</summary>
    public long Syncs => Interlocked.Read(ref _syncs);

    /// <summary>The name of the default VFS this one passes everything on to ("unix" on Linux).</summary>
    public string InnerName => Marshal.PtrToStringUTF8((nint)_inner->Name) ?? "";

    /// <summary>The VFS with <paramref name="delay"/>, registered on first use and shared by every caller with the same delay.</summary>
    public static SlowSyncVfs For(TimeSpan delay)
    {
        ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(delay, TimeSpan.Zero);
        var microseconds = (long)Math.Round(delay.TotalMicroseconds);
        return ByDelay.GetOrAdd(microseconds, us => Register($"slowsync-{us.ToString(CultureInfo.InvariantCulture)}us", TimeSpan.FromMicroseconds(us)));
    }

    /// <summary>
    /// Registers a VFS named <paramref name="name"/> with its own <see cref="Syncs"/> count (tests:
    /// one per test, so counts do not mix). <paramref name="delay"/> may be zero (count only).
    /// </summary>
    public static SlowSyncVfs Register(string name, TimeSpan delay)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(name);
        ArgumentOutOfRangeException.ThrowIfLessThan(delay, TimeSpan.Zero);
        lock (Registering)
        {
            if (SqliteVfsApi.Find(name) != null)
            {
                throw new InvalidOperationException($"A SQLite VFS named '{name}' is registered already; pick another name.");
            }

            var inner = SqliteVfsApi.Find(null);
            if (inner == null)
            {
                throw new InvalidOperationException("SQLite has no default VFS to pass the files on to.");
            }

            var owner = new SlowSyncVfs(name, delay, inner);
            var handle = GCHandle.Alloc(owner); // Rule 3: never freed
            var vfs = (SqliteVfsStruct*)NativeMemory.AllocZeroed((nuint)sizeof(SqliteVfsStruct));
            *vfs = *inner; // the same version and limits; every method replaced below (rule 1)
            vfs->Next = null;
            vfs->OsFileSize = sizeof(SlowSyncFile) + inner->OsFileSize;
            vfs->Name = Utf8(name);
            vfs->AppData = (void*)GCHandle.ToIntPtr(handle);
            Callbacks.Fill(vfs);
            var rc = SqliteVfsApi.Register(vfs);
            if (rc != 0)
            {
                throw new InvalidOperationException($"sqlite3_vfs_register('{name}') failed with SQLite error {rc}.");
            }

            return owner;
        }
    }

    /// <summary>Rule 1: the slower sync, on the thread SQLite syncs on.</summary>
    private void BeforeSync()
    {
        Interlocked.Increment(ref _syncs);
        PreciseSleep.For(Delay);
    }

    private static SlowSyncVfs Owner(nint handle) => (SlowSyncVfs)GCHandle.FromIntPtr(handle).Target!;

    private static SlowSyncVfs Owner(SqliteVfsStruct* vfs) => Owner((nint)vfs->AppData);

    private static byte* Utf8(string text)
    {
        var bytes = System.Text.Encoding.UTF8.GetBytes(text);
        var memory = (byte*)NativeMemory.Alloc((nuint)bytes.Length + 1);
        bytes.CopyTo(new Span<byte>(memory, bytes.Length));
        memory[bytes.Length] = 0;
        return memory;
    }

    /// <summary>Native code's entry points (rule 4): the VFS's methods, then the io methods (SlowSyncVfs.Io.cs).</summary>
    private static partial class Callbacks
    {
        private const int Ok = 0;
        private const int CantOpen = 14;
        private const int IoErrFsync = 10 | (4 << 8);

        public static void Fill(SqliteVfsStruct* vfs)
        {
            vfs->Open = &Open;
            vfs->Delete = &Delete;
            vfs->Access = &Access;
            vfs->FullPathname = &FullPathname;
            vfs->DlOpen = &DlOpen;
            vfs->DlError = &DlError;
            vfs->DlSym = &DlSym;
            vfs->DlClose = &DlClose;
            vfs->Randomness = &Randomness;
            vfs->Sleep = &Sleep;
            vfs->CurrentTime = &CurrentTime;
            vfs->GetLastError = &GetLastError;
            vfs->CurrentTimeInt64 = vfs->Version >= 2 ? &CurrentTimeInt64 : null;
            vfs->SetSystemCall = vfs->Version >= 3 ? &SetSystemCall : null;
            vfs->GetSystemCall = vfs->Version >= 3 ? &GetSystemCall : null;
            vfs->NextSystemCall = vfs->Version >= 3 ? &NextSystemCall : null;
        }

        private static SqliteVfsStruct* Inner(SqliteVfsStruct* vfs) => Owner(vfs)._inner;

        /// <summary>Opens the inner file behind the header; the file is ours only once the inner one has methods (rule 2).</summary>
        [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
        private static int Open(SqliteVfsStruct* vfs, byte* name, SqliteFile* file, int flags, int* outFlags)
        {
            var header = (SlowSyncFile*)file;
            header->Methods = null;
            header->Owner = 0;
            try
            {
                var inner = Inner(vfs);
                var innerFile = SlowSyncFile.Inner(file);
                innerFile->Methods = null;
                var rc = inner->Open(inner, name, innerFile, flags, outFlags);
                if (innerFile->Methods != null)
                {
                    header->Owner = (nint)vfs->AppData;
                    header->Methods = IoMethodsOfVersion(innerFile->Methods->Version);
                }

                return rc;
            }
            catch (Exception)
            {
                return CantOpen;
            }
        }

        [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
        private static int Delete(SqliteVfsStruct* vfs, byte* name, int syncDirectory)
        {
            var inner = Inner(vfs);
            return inner->Delete(inner, name, syncDirectory);
        }

        [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
        private static int Access(SqliteVfsStruct* vfs, byte* name, int flags, int* result)
        {
            var inner = Inner(vfs);
            return inner->Access(inner, name, flags, result);
        }

        [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
        private static int FullPathname(SqliteVfsStruct* vfs, byte* name, int size, byte* output)
        {
            var inner = Inner(vfs);
            return inner->FullPathname(inner, name, size, output);
        }

        [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
        private static void* DlOpen(SqliteVfsStruct* vfs, byte* path)
        {
            var inner = Inner(vfs);
            return inner->DlOpen(inner, path);
        }

        [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
        private static void DlError(SqliteVfsStruct* vfs, int size, byte* message)
        {
            var inner = Inner(vfs);
            inner->DlError(inner, size, message);
        }

        [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
        private static void* DlSym(SqliteVfsStruct* vfs, void* library, byte* symbol)
        {
            var inner = Inner(vfs);
            return inner->DlSym(inner, library, symbol);
        }

        [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
        private static void DlClose(SqliteVfsStruct* vfs, void* library)
        {
            var inner = Inner(vfs);
            inner->DlClose(inner, library);
        }

        [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
        private static int Randomness(SqliteVfsStruct* vfs, int size, byte* output)
        {
            var inner = Inner(vfs);
            return inner->Randomness(inner, size, output);
        }

        [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
        private static int Sleep(SqliteVfsStruct* vfs, int microseconds)
        {
            var inner = Inner(vfs);
            return inner->Sleep(inner, microseconds);
        }

        [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
        private static int CurrentTime(SqliteVfsStruct* vfs, double* julianDay)
        {
            var inner = Inner(vfs);
            return inner->CurrentTime(inner, julianDay);
        }

        [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
        private static int GetLastError(SqliteVfsStruct* vfs, int size, byte* message)
        {
            var inner = Inner(vfs);
            return inner->GetLastError(inner, size, message);
        }

        [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
        private static int CurrentTimeInt64(SqliteVfsStruct* vfs, long* milliseconds)
        {
            var inner = Inner(vfs);
            return inner->CurrentTimeInt64(inner, milliseconds);
        }

        [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
        private static int SetSystemCall(SqliteVfsStruct* vfs, byte* name, void* call)
        {
            var inner = Inner(vfs);
            return inner->SetSystemCall(inner, name, call);
        }

        [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
        private static void* GetSystemCall(SqliteVfsStruct* vfs, byte* name)
        {
            var inner = Inner(vfs);
            return inner->GetSystemCall(inner, name);
        }

        [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
        private static byte* NextSystemCall(SqliteVfsStruct* vfs, byte* name)
        {
            var inner = Inner(vfs);
            return inner->NextSystemCall(inner, name);
        }
    }
}
