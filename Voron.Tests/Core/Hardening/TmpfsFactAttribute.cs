using System.Diagnostics;

namespace Voron.Tests.Core.Hardening;

/// <summary>
/// A fact that needs a real small file system: it runs only where the test process may mount a
/// tmpfs (root, with the capability to mount, on Linux), and is skipped with the reason otherwise.
/// Whether it may is probed once, at discovery, by mounting and unmounting a 1 MiB tmpfs.
/// </summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class TmpfsFactAttribute : FactAttribute
{
    private static readonly Lazy<string?> WhyNot = new(Probe);

    public TmpfsFactAttribute()
    {
        if (WhyNot.Value is { } reason)
        {
            Skip = $"needs a real tmpfs: {reason}. Run the tests as root where 'mount -t tmpfs' is allowed (a VM, or a container with CAP_SYS_ADMIN); the simulated disk tests cover the same cycle.";
        }
    }

    private static string? Probe()
    {
        if (!OperatingSystem.IsLinux())
        {
            return "not Linux";
        }

        if (Environment.UserName != "root")
        {
            return $"running as '{Environment.UserName}', not root";
        }

        var mount = Path.Combine(Path.GetTempPath(), "voron-tmpfs-probe-" + Guid.NewGuid().ToString("N")[..8]);
        try
        {
            Directory.CreateDirectory(mount);
            if (Run("mount", $"-t tmpfs -o size=1m tmpfs {mount}") is { } error)
            {
                return $"mount -t tmpfs failed ({error.Trim()})";
            }

            Run("umount", mount);
            return null;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or System.ComponentModel.Win32Exception)
        {
            return $"mount could not run ({e.Message})";
        }
        finally
        {
            try
            {
                Directory.Delete(mount);
            }
            catch (IOException)
            {
                // still mounted after a failed umount: left for the OS to clean
            }
        }
    }

    private static string? Run(string command, string arguments)
    {
        using var process = Process.Start(new ProcessStartInfo(command, arguments) { RedirectStandardError = true, UseShellExecute = false })!;
        var error = process.StandardError.ReadToEnd();
        process.WaitForExit();
        return process.ExitCode == 0 ? null : error;
    }
}
