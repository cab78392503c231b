using System.Reflection;
using System.Runtime.InteropServices;
using System.Runtime.Loader;
using System.Security.Cryptography;
using LightningDB;

namespace Voron.LoadTests.Stores.Lmdb;

/// <summary>
/// Makes LightningDB's own native LMDB load on older Linux. LightningDB 0.23.1 ships
/// <c>runtimes/linux-x64/native/liblmdb.so</c> (LMDB 1.0.1) built against glibc 2.38, for a single
/// symbol: <c>__isoc23_strtol</c>, the C23 <c>strtol</c> (which also reads a <c>0b</c> binary
/// prefix). Debian 12, our machines' system, has glibc 2.36, so the library as shipped does not
/// load there. When the normal load fails, <see cref="Resolve"/> loads a copy in which the C23
/// references are redirected to the classic functions (<see cref="Glibc238Shim"/>), so the LMDB
/// rows run on a fresh machine without any system package. Where the shipped library loads (glibc
/// 2.38 or later) nothing is copied.
/// </summary>
internal static class LmdbLibrary
{
    private const string ImportName = "lmdb"; // LightningDB's DllImport name
    private static int _installed;

    /// <summary>How the library was loaded, for the report: "as shipped" or the path of the compatible copy.</summary>
    internal static string LoadedFrom { get; private set; } = "as shipped with LightningDB";

    /// <summary>Hooks the fallback into the default load context once; call before the first LightningDB call.</summary>
    internal static void Install()
    {
        if (Interlocked.Exchange(ref _installed, 1) == 0)
        {
            AssemblyLoadContext.Default.ResolvingUnmanagedDll += Resolve;
        }
    }

    /// <summary>The LMDB version string (e.g. "LMDB 1.0.1: ..."); throws <see cref="DllNotFoundException"/> when no library loads.</summary>
    internal static string Version()
    {
        Install();
        using var probe = new LightningEnvironment(Path.GetTempPath()); // mdb_env_create only: nothing is opened
        return probe.Version.Version ?? $"LMDB {probe.Version.Major}.{probe.Version.Minor}.{probe.Version.Patch}";
    }

    /// <summary>Runs only after the default probing failed to load <c>lmdb</c> for LightningDB.</summary>
    private static nint Resolve(Assembly assembly, string name)
    {
        if (assembly != typeof(LightningEnvironment).Assembly || name != ImportName || !OperatingSystem.IsLinux())
        {
            return 0;
        }

        var shipped = FindShipped();
        if (shipped == null)
        {
            return 0;
        }

        var image = File.ReadAllBytes(shipped);
        if (!Glibc238Shim.TryPatch(image))
        {
            return 0;
        }

        var path = Path.Combine(Path.GetTempPath(), "voron-lmdb-" + Convert.ToHexString(SHA256.HashData(image))[..16], "liblmdb.so");
        if (!File.Exists(path))
        {
            Directory.CreateDirectory(Path.GetDirectoryName(path)!);
            var temporary = path + "." + Environment.ProcessId;
            File.WriteAllBytes(temporary, image);
            File.Move(temporary, path, overwrite: true);
        }

        if (!NativeLibrary.TryLoad(path, out var handle))
        {
            return 0;
        }

        LoadedFrom = $"a copy of LightningDB's liblmdb.so with its glibc 2.38 references redirected ({path})";
        return handle;
    }

    /// <summary>LightningDB's liblmdb.so for this machine, where the build put it: beside the program, or under runtimes/&lt;rid&gt;/native.</summary>
    private static string? FindShipped()
    {
        var rid = "linux-" + RuntimeInformation.ProcessArchitecture.ToString().ToLowerInvariant();
        return new[]
            {
                Path.Combine(AppContext.BaseDirectory, "runtimes", rid, "native", "liblmdb.so"),
                Path.Combine(AppContext.BaseDirectory, "liblmdb.so"),
            }
            .FirstOrDefault(File.Exists);
    }
}
