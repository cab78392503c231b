namespace Voron.SqliteVfs.Interop;

/// <summary>The SQLite constants the VFS uses (sqlite3.h; values are part of SQLite's stable ABI).</summary>
internal static class SqliteConstants
{
    // Result codes (primary, then extended = primary | (n << 8)).
    public const int Ok = 0;
    public const int Error = 1;
    public const int Busy = 5;
    public const int ReadOnly = 8;
    public const int NoMem = 7;
    public const int IoErr = 10;
    public const int Corrupt = 11;
    public const int NotFound = 12;
    public const int Full = 13;
    public const int CantOpen = 14;
    public const int Schema = 17;
    public const int Constraint = 19;
    public const int Misuse = 21;
    public const int Done = 101;
    public const int IoErrRead = IoErr | (1 << 8);
    public const int IoErrShortRead = IoErr | (2 << 8);
    public const int IoErrWrite = IoErr | (3 << 8);
    public const int IoErrFsync = IoErr | (4 << 8);
    public const int IoErrTruncate = IoErr | (6 << 8);
    public const int IoErrFstat = IoErr | (7 << 8);
    public const int IoErrUnlock = IoErr | (8 << 8);
    public const int IoErrRdLock = IoErr | (9 << 8);
    public const int IoErrDelete = IoErr | (10 << 8);
    public const int IoErrAccess = IoErr | (13 << 8);
    public const int IoErrLock = IoErr | (15 << 8);
    public const int IoErrClose = IoErr | (16 << 8);
    public const int BusySnapshot = Busy | (2 << 8);
    public const int CantOpenFullPath = CantOpen | (3 << 8);

    // Open flags (xOpen).
    public const int OpenReadOnly = 0x1;
    public const int OpenReadWrite = 0x2;
    public const int OpenCreate = 0x4;
    public const int OpenDeleteOnClose = 0x8;
    public const int OpenMainDb = 0x100;
    public const int OpenTempDb = 0x200;
    public const int OpenTransientDb = 0x400;
    public const int OpenMainJournal = 0x800;
    public const int OpenTempJournal = 0x1000;
    public const int OpenSubJournal = 0x2000;
    public const int OpenSuperJournal = 0x4000;
    public const int OpenWal = 0x80000;

    // Lock levels (xLock / xUnlock).
    public const int LockNone = 0;
    public const int LockShared = 1;
    public const int LockReserved = 2;
    public const int LockPending = 3;
    public const int LockExclusive = 4;

    // xAccess flags.
    public const int AccessExists = 0;

    // Device characteristics.
    public const int IoCapSafeAppend = 0x200;
    public const int IoCapSequential = 0x400;
    public const int IoCapPowersafeOverwrite = 0x1000;

    // File-control opcodes.
    public const int FcntlLockState = 1;
    public const int FcntlFilePointer = 7;
    public const int FcntlSizeHint = 5;
    public const int FcntlChunkSize = 6;
    public const int FcntlVfsName = 12;
    public const int FcntlPragma = 14;
    public const int FcntlBusyHandler = 15;
    public const int FcntlHasMoved = 20;
    public const int FcntlSync = 21;
    public const int FcntlCommitPhaseTwo = 22;
    public const int FcntlPdb = 30;

    // Virtual tables.
    public const int VtabConstraintSupport = 1; // sqlite3_vtab_config op
    public const int IndexScanUnique = 1; // sqlite3_index_info.idxFlags
}
