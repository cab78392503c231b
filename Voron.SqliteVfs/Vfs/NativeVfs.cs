using System.Runtime.InteropServices;
using System.Text;
using Voron.SqliteVfs.Interop;
using Voron.SqliteVfs.Databases;

namespace Voron.SqliteVfs.Vfs;

/// <summary>
/// One registered sqlite3_vfs: its native struct and name, and the store it serves. SQLite keeps
/// the struct's address in every connection it opened and may call it for temporary files long
/// after the VFS was unregistered, so the struct (168 bytes and the name) is never freed; the
/// handle to this object — and so the store — is let go once the VFS is unregistered and its
/// last file is closed, after which a late call finds no store and fails cleanly.
/// </summary>
internal sealed unsafe class NativeVfs
{
    private readonly object _sync = new();
    private SqliteVfsStruct* _vfs;
    private GCHandle _self;
    private int _openFiles;
    private bool _unregistered;

    private readonly byte[] _fullPathPrefix;

    private NativeVfs(StorageEnvironment environment, string name, VoronSqliteOptions options)
    {
        Environment = environment;
        Name = name;
        Options = options;
        Databases = SqliteDatabases.For(environment);
        ReadReplica = environment.Replica != null;
        FullPathPrefix = DatabaseNames.FullPathPrefix(environment.Path);
        _fullPathPrefix = Encoding.UTF8.GetBytes(FullPathPrefix);
    }

    /// <summary>V12: what xFullPathname puts before a database's name.</summary>
    public string FullPathPrefix { get; }

    /// <summary>
    /// V12: the database of this store that <paramref name="name"/> names — a plain name, or the
    /// full pathname this VFS gave it — or null for an OS file (another absolute path).
    /// </summary>
    public string? DatabaseName(byte* name)
    {
        if (name == null)
        {
            return null;
        }

        var bytes = MemoryMarshal.CreateReadOnlySpanFromNullTerminated(name);
        if (bytes.StartsWith(_fullPathPrefix))
        {
            return Encoding.UTF8.GetString(bytes[_fullPathPrefix.Length..]);
        }

        return OsFiles.IsOsPath(name) ? null : Encoding.UTF8.GetString(bytes);
    }

    public StorageEnvironment Environment { get; }

    public string Name { get; }

    public VoronSqliteOptions Options { get; }

    public SqliteDatabases Databases { get; }

    /// <summary>V18: the store is a read replica (StorageEnvironment.OpenReplica): its databases are only read.</summary>
    public bool ReadReplica { get; }

    private IDocumentHook? _documents;

    /// <summary>DH1: the document hook (the store the voron_docs module reads and writes), once bound.</summary>
    public IDocumentHook? Documents => Volatile.Read(ref _documents);

    public void BindDocuments(IDocumentHook hook)
    {
        if (Interlocked.CompareExchange(ref _documents, hook, null) is { } bound && !ReferenceEquals(bound.Store, hook.Store))
        {
            throw new InvalidOperationException($"Vfs={Name} already serves a document store; one DocumentStore per registration (and per store).");
        }
    }

    /// <summary>SQLite's default VFS (the OS's files), which serves the names <see cref="OsFiles"/> passes through.</summary>
    public static SqliteVfsStruct* DefaultVfs { get; private set; }

    public static NativeVfs Register(StorageEnvironment environment, string name, VoronSqliteOptions options)
    {
        var rc = SqliteNative.Initialize();
        if (rc != SqliteConstants.Ok)
        {
            throw new InvalidOperationException($"sqlite3_initialize failed with code {rc}.");
        }

        var vfs = new NativeVfs(environment, name, options);
        vfs.Allocate();
        rc = SqliteNative.VfsRegister(vfs._vfs, 0);
        if (rc != SqliteConstants.Ok)
        {
            vfs.Free();
            throw new InvalidOperationException($"sqlite3_vfs_register('{name}') failed with code {rc}.");
        }

        return vfs;
    }

    public static bool IsRegistered(string name)
    {
        var bytes = Encoding.UTF8.GetBytes(name + "\0");
        fixed (byte* p = bytes)
        {
            return SqliteNative.VfsFind(p) != null;
        }
    }

    /// <summary>The registration behind a sqlite3_vfs, or null once it has been let go.</summary>
    public static NativeVfs? From(SqliteVfsStruct* vfs) =>
        vfs->AppData == null ? null : (NativeVfs?)GCHandle.FromIntPtr((nint)vfs->AppData).Target;

    public void FileOpened()
    {
        lock (_sync)
        {
            _openFiles++;
        }
    }

    public void FileClosed()
    {
        lock (_sync)
        {
            if (--_openFiles == 0 && _unregistered)
            {
                Free();
            }
        }
    }

    /// <summary>New connections can no longer name this VFS; files still open keep working until closed.</summary>
    public void Unregister()
    {
        lock (_sync)
        {
            if (_unregistered)
            {
                return;
            }

            _unregistered = true;
            _ = SqliteNative.VfsUnregister(_vfs); // SQLITE_OK, or MISUSE for a VFS not in the list: either way it is out
            if (_openFiles == 0)
            {
                Free();
            }
        }
    }

    private void Allocate()
    {
        var nameBytes = Encoding.UTF8.GetBytes(Name);
        var zName = (byte*)NativeMemory.AllocZeroed((nuint)nameBytes.Length + 1);
        nameBytes.CopyTo(new Span<byte>(zName, nameBytes.Length));
        _vfs = (SqliteVfsStruct*)NativeMemory.AllocZeroed((nuint)sizeof(SqliteVfsStruct));
        _self = GCHandle.Alloc(this);

        // The OS-level services (extension loading, randomness, time) come from the default VFS:
        // its functions ignore the sqlite3_vfs they are given (os_unix.c, os_win.c).
        var system = SqliteNative.VfsFind(null);
        DefaultVfs = system;
        _vfs->Version = 2;
        _vfs->OsFileSize = Math.Max(sizeof(SqliteFile), system->OsFileSize); // OsFiles opens the default VFS's files in the same block
        _vfs->MaxPathname = Math.Max(Math.Max(512, system->MaxPathname), _fullPathPrefix.Length + DatabaseNames.MaxBytes + 64); // V12: a full pathname and SQLite's suffixes
        _vfs->Name = zName;
        _vfs->AppData = (void*)GCHandle.ToIntPtr(_self);
        _vfs->Open = &VfsCallbacks.Open;
        _vfs->Delete = &VfsCallbacks.Delete;
        _vfs->Access = &VfsCallbacks.Access;
        _vfs->FullPathname = &VfsCallbacks.FullPathname;
        _vfs->DlOpen = system->DlOpen;
        _vfs->DlError = system->DlError;
        _vfs->DlSym = system->DlSym;
        _vfs->DlClose = system->DlClose;
        _vfs->Randomness = system->Randomness;
        _vfs->Sleep = (void*)(delegate* unmanaged[Cdecl]<SqliteVfsStruct*, int, int>)&VfsCallbacks.Sleep; // V1: the busy handler's sleeps wait in line
        _vfs->CurrentTime = system->CurrentTime;
        _vfs->GetLastError = system->GetLastError;
        _vfs->CurrentTimeInt64 = system->Version >= 2 ? system->CurrentTimeInt64 : null;
    }

    private void Free()
    {
        if (_vfs->AppData == null)
        {
            return;
        }

        _vfs->AppData = null;
        _self.Free();
    }
}
