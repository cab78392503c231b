using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Voron.SqliteVfs.Interop.VirtualTables;

/// <summary>xCreate, xConnect, xBestIndex, xDisconnect, xDestroy, xUpdate, xRename.</summary>
internal static unsafe partial class ModuleCallbacks
{
    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    private static int Create(nint db, void* clientData, int argc, byte** argv, SqliteVtab** vtab, byte** error) =>
        Construct(db, clientData, argc, argv, vtab, error, create: true);

    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    private static int Connect(nint db, void* clientData, int argc, byte** argv, SqliteVtab** vtab, byte** error) =>
        Construct(db, clientData, argc, argv, vtab, error, create: false);

    private static int Construct(nint db, void* clientData, int argc, byte** argv, SqliteVtab** vtab, byte** error, bool create)
    {
        VirtualTable? table = null;
        try
        {
            var module = (VirtualTableModule)GCHandle.FromIntPtr((nint)clientData).Target!;
            var arguments = new string[Math.Max(0, argc - 3)];
            for (var i = 0; i < arguments.Length; i++)
            {
                arguments[i] = SqliteNative.Utf8String(argv[i + 3]) ?? string.Empty;
            }

            var context = new VirtualTableContext(
                db,
                SqliteNative.Utf8String(argv[0]) ?? module.Name,
                SqliteNative.Utf8String(argv[1]) ?? "main",
                SqliteNative.Utf8String(argv[2]) ?? module.Name,
                arguments);
            table = module.Connect(context, create);
            Declare(db, table);
            var native = (SqliteVtab*)NativeMemory.AllocZeroed((nuint)sizeof(SqliteVtab)); // SQLite sets pModule
            native->Handle = GCHandle.ToIntPtr(GCHandle.Alloc(table));
            *vtab = native;
            return SqliteConstants.Ok;
        }
        catch (Exception e)
        {
            if (table != null)
            {
                try
                {
                    table.Disconnect();
                }
                catch
                {
                    // The first failure is the one to report.
                }
            }

            var (code, message) = Describe(e);
            SetMessage(error, message);
            return code;
        }
    }

    private static void Declare(nint db, VirtualTable table)
    {
        var declaration = table.Declaration;
        var bytes = System.Text.Encoding.UTF8.GetBytes(declaration + "\0");
        int rc;
        fixed (byte* p = bytes)
        {
            rc = SqliteNative.DeclareVtab(db, p);
        }

        if (rc != SqliteConstants.Ok)
        {
            var reason = SqliteNative.Utf8String(SqliteNative.ErrorMessage(db));
            throw new VirtualTableException(rc, $"sqlite3_declare_vtab refused '{declaration}': {reason}");
        }

        // Only where the fixed-argument binding of the variadic sqlite3_vtab_config is right (not
        // Apple arm64); elsewhere the table works without it: SQLite then treats SQLITE_CONSTRAINT
        // from xUpdate as ABORT and ignores OR IGNORE / OR REPLACE / OR FAIL.
        if (table.ConstraintSupport && SqliteNative.VtabConfigIsSafe)
        {
            rc = SqliteNative.VtabConfig(db, SqliteConstants.VtabConstraintSupport, 1);
            if (rc != SqliteConstants.Ok)
            {
                throw new VirtualTableException(rc, $"sqlite3_vtab_config(SQLITE_VTAB_CONSTRAINT_SUPPORT) failed with code {rc}.");
            }
        }
    }

    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    private static int BestIndex(SqliteVtab* vtab, SqliteIndexInfoStruct* native)
    {
        var info = IndexInfo.Over(native);
        try
        {
            TableOf(vtab).BestIndex(info);
            return SqliteConstants.Ok;
        }
        catch (Exception e)
        {
            // A plan that failed leaves no idxStr behind (SQLite would not use or free it).
            if (native->NeedToFreeIndexString != 0 && native->IndexString != null)
            {
                SqliteNative.Free(native->IndexString);
            }

            native->IndexString = null;
            native->NeedToFreeIndexString = 0;
            return Fail(vtab, e); // SQLITE_CONSTRAINT here means "this plan is unusable", not an error (vtab.html)
        }
        finally
        {
            info.Invalidate();
        }
    }

    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    private static int Disconnect(SqliteVtab* vtab)
    {
        var handle = GCHandle.FromIntPtr(vtab->Handle);
        try
        {
            ((VirtualTable)handle.Target!).Disconnect();
            return SqliteConstants.Ok;
        }
        catch (Exception e)
        {
            return Describe(e).Code; // SQLite ignores it; LastError keeps it
        }
        finally
        {
            FreeVtab(vtab, handle);
        }
    }

    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    private static int Destroy(SqliteVtab* vtab)
    {
        var handle = GCHandle.FromIntPtr(vtab->Handle);
        try
        {
            ((VirtualTable)handle.Target!).Destroy();
        }
        catch (Exception e)
        {
            return Fail(vtab, e); // the DROP fails; SQLite keeps the table and later calls xDisconnect
        }

        FreeVtab(vtab, handle);
        return SqliteConstants.Ok;
    }

    private static void FreeVtab(SqliteVtab* vtab, GCHandle handle)
    {
        handle.Free();
        if (vtab->ErrorMessage != null)
        {
            SqliteNative.Free(vtab->ErrorMessage);
        }

        NativeMemory.Free(vtab);
    }

    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    private static int Update(SqliteVtab* vtab, int argc, nint* argv, long* rowId)
    {
        try
        {
            // SqliteValue is one nint: sqlite3_value** is already a span of them.
            TableOf(vtab).Update(new ReadOnlySpan<SqliteValue>(argv, argc));
            return SqliteConstants.Ok;
        }
        catch (Exception e)
        {
            return Fail(vtab, e);
        }
    }

    /// <summary>ALTER TABLE ... RENAME: accepted (a module's state does not name its table).</summary>
    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    private static int Rename(SqliteVtab* vtab, byte* newName) => SqliteConstants.Ok;
}
