namespace Voron.Testing.Crash;

/// <summary>A failure the crash simulator injects into one call (it returns an error; the machine keeps running).</summary>
internal enum IoFault
{
    None,

    /// <summary>EIO: the call fails and changes nothing.</summary>
    IoError,

    /// <summary>ENOSPC: the call fails with <see cref="DiskFullException"/> and changes nothing.</summary>
    DiskFull,

    /// <summary>A write fails with <see cref="DiskFullException"/> after some of its leading sectors were written.</summary>
    PartialWriteThenDiskFull,

    /// <summary>
    /// FlushData fails with EIO and, as Linux does after a failed writeback, the unsynced data of
    /// the file may be lost for good even though reads still return it (fsyncgate).
    /// </summary>
    FsyncFailure,

    /// <summary>As <see cref="FsyncFailure"/>, and every unsynced write of the file is lost (deterministic, for regression tests).</summary>
    FsyncFailureLosingTheWrites,

    /// <summary>FlushData returns success but makes nothing durable: a disk that lies about sync
    /// (the engine cannot detect it; used to show the crash tests notice what it loses).</summary>
    LyingFsync,
}
