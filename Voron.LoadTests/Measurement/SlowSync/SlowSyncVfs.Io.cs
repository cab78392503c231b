using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Voron.LoadTests.Measurement.SlowSync;

internal sealed unsafe partial class SlowSyncVfs
{
    private static partial class Callbacks
    {
        /// <summary>Rule 2: the io methods of versions 1, 2 and 3, the same functions; made once, never freed (rule 3).</summary>
        private static readonly nint[] IoMethods = [MakeIoMethods(1), MakeIoMethods(2), MakeIoMethods(3)];

        private static SqliteIoMethods* IoMethodsOfVersion(int version) => (SqliteIoMethods*)IoMethods[Math.Clamp(version, 1, 3) - 1];

        private static nint MakeIoMethods(int version)
        {
            var methods = (SqliteIoMethods*)NativeMemory.AllocZeroed((nuint)sizeof(SqliteIoMethods));
            methods->Version = version;
            methods->Close = &Close;
            methods->Read = &Read;
            methods->Write = &Write;
            methods->Truncate = &Truncate;
            methods->Sync = &Sync;
            methods->FileSize = &FileSize;
            methods->Lock = &Lock;
            methods->Unlock = &Unlock;
            methods->CheckReservedLock = &CheckReservedLock;
            methods->FileControl = &FileControl;
            methods->SectorSize = &SectorSize;
            methods->DeviceCharacteristics = &DeviceCharacteristics;
            methods->ShmMap = &ShmMap;
            methods->ShmLock = &ShmLock;
            methods->ShmBarrier = &ShmBarrier;
            methods->ShmUnmap = &ShmUnmap;
            methods->Fetch = &Fetch;
            methods->Unfetch = &Unfetch;
            return (nint)methods;
        }

        /// <summary>Rule 1: the one method that is not passed on unchanged.</summary>
        [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
        private static int Sync(SqliteFile* file, int flags)
        {
            try
            {
                Owner(((SlowSyncFile*)file)->Owner).BeforeSync();
            }
            catch (Exception)
            {
                return IoErrFsync;
            }

            var inner = SlowSyncFile.Inner(file);
            return inner->Methods->Sync(inner, flags);
        }

        /// <summary>Closes the inner file; SQLite frees the block afterwards.</summary>
        [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
        private static int Close(SqliteFile* file)
        {
            var inner = SlowSyncFile.Inner(file);
            var rc = inner->Methods->Close(inner);
            ((SlowSyncFile*)file)->Methods = null;
            return rc;
        }

        [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
        private static int Read(SqliteFile* file, void* buffer, int amount, long offset)
        {
            var inner = SlowSyncFile.Inner(file);
            return inner->Methods->Read(inner, buffer, amount, offset);
        }

        [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
        private static int Write(SqliteFile* file, void* buffer, int amount, long offset)
        {
            var inner = SlowSyncFile.Inner(file);
            return inner->Methods->Write(inner, buffer, amount, offset);
        }

        [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
        private static int Truncate(SqliteFile* file, long size)
        {
            var inner = SlowSyncFile.Inner(file);
            return inner->Methods->Truncate(inner, size);
        }

        [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
        private static int FileSize(SqliteFile* file, long* size)
        {
            var inner = SlowSyncFile.Inner(file);
            return inner->Methods->FileSize(inner, size);
        }

        [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
        private static int Lock(SqliteFile* file, int level)
        {
            var inner = SlowSyncFile.Inner(file);
            return inner->Methods->Lock(inner, level);
        }

        [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
        private static int Unlock(SqliteFile* file, int level)
        {
            var inner = SlowSyncFile.Inner(file);
            return inner->Methods->Unlock(inner, level);
        }

        [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
        private static int CheckReservedLock(SqliteFile* file, int* result)
        {
            var inner = SlowSyncFile.Inner(file);
            return inner->Methods->CheckReservedLock(inner, result);
        }

        [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
        private static int FileControl(SqliteFile* file, int operation, void* argument)
        {
            var inner = SlowSyncFile.Inner(file);
            return inner->Methods->FileControl(inner, operation, argument);
        }

        [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
        private static int SectorSize(SqliteFile* file)
        {
            var inner = SlowSyncFile.Inner(file);
            return inner->Methods->SectorSize(inner);
        }

        [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
        private static int DeviceCharacteristics(SqliteFile* file)
        {
            var inner = SlowSyncFile.Inner(file);
            return inner->Methods->DeviceCharacteristics(inner);
        }

        [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
        private static int ShmMap(SqliteFile* file, int region, int regionSize, int extend, void** address)
        {
            var inner = SlowSyncFile.Inner(file);
            return inner->Methods->ShmMap(inner, region, regionSize, extend, address);
        }

        [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
        private static int ShmLock(SqliteFile* file, int offset, int count, int flags)
        {
            var inner = SlowSyncFile.Inner(file);
            return inner->Methods->ShmLock(inner, offset, count, flags);
        }

        [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
        private static void ShmBarrier(SqliteFile* file)
        {
            var inner = SlowSyncFile.Inner(file);
            inner->Methods->ShmBarrier(inner);
        }

        [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
        private static int ShmUnmap(SqliteFile* file, int deleteFlag)
        {
            var inner = SlowSyncFile.Inner(file);
            return inner->Methods->ShmUnmap(inner, deleteFlag);
        }

        [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
        private static int Fetch(SqliteFile* file, long offset, int amount, void** address)
        {
            var inner = SlowSyncFile.Inner(file);
            return inner->Methods->Fetch(inner, offset, amount, address);
        }

        [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
        private static int Unfetch(SqliteFile* file, long offset, void* address)
        {
            var inner = SlowSyncFile.Inner(file);
            return inner->Methods->Unfetch(inner, offset, address);
        }
    }
}
