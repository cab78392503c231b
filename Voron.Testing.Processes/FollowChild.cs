using System.Globalization;

namespace Voron.Testing.Processes;

/// <summary>
/// <c>follow-child &lt;replica dir&gt; &lt;lineage&gt; &lt;until tx&gt; &lt;destination&gt;</c> (<see cref="ChildDestination"/>):
/// the read replica Voron.Tests' CrossProcessReplicaTests runs in another process while the test's
/// primary writes and ships. It opens <see cref="StorageEnvironment.OpenReplica"/> in the directory
/// and prints <c>TX &lt;id&gt; &lt;digest&gt;</c> (<see cref="StateDigest"/>) for every snapshot it reads,
/// in increasing id order, starting with the restored snapshot's. It exits with
/// 0 after <c>DONE &lt;id&gt;</c> once it read a transaction at or past <c>until tx</c>;
/// 3 after <c>STOPPED &lt;error&gt;</c> when the replica stops on a fail-safe check (RE5, RE6);
/// 2 when its standard input closes first (the test gave up on it).
/// </summary>
/// <remarks>
/// Every applied transaction is read without racing the replica: no hook runs inside the replica's
/// apply, so the child reads through a loop (begin a read, digest it, wait for the next
/// transaction) and paces the replica instead: its downloads go through a
/// <see cref="PacedDestination"/>, which holds back each journal object until the child has read the
/// state the objects before it left. The child so reads the state after every object applied; in
/// between, it reads what its loop happens to catch.
/// </remarks>
internal static class FollowChild
{
    internal const string Command = "follow-child";

    internal const int Reached = 0;
    internal const int StdinClosed = 2;
    internal const int Stopped = 3;

    internal static async Task<int> RunAsync(string directory, string lineage, long until, IArchiveDestination real, TextReader input, TextWriter output)
    {
        using var closed = new CancellationTokenSource();
        var watcher = new Thread(() =>
        {
            while (input.ReadLine() != null)
            {
            }

            closed.Cancel();
        }) { IsBackground = true, Name = "stdin watcher" };
        watcher.Start();

        using var destination = new PacedDestination(real, lineage);
        using var replica = StorageEnvironment.OpenReplica(destination, directory,
            new ReplicaOptions { Lineage = lineage, PollInterval = TimeSpan.FromMilliseconds(20) });
        destination.Attach(replica);
        var last = -1L;
        while (true)
        {
            using (var read = replica.BeginRead())
            {
                if (read.Id > last)
                {
                    last = read.Id;
                    Line(output, string.Create(CultureInfo.InvariantCulture, $"TX {last} {StateDigest.Of(read)}"));
                }
            }

            destination.Read(last);
            if (last >= until)
            {
                Line(output, string.Create(CultureInfo.InvariantCulture, $"DONE {last}"));
                return Reached;
            }

            try
            {
                await replica.WaitForTransactionAsync(last + 1, closed.Token).ConfigureAwait(false);
            }
            catch (ReplicaStoppedException e)
            {
                Line(output, $"STOPPED {e.Message.ReplaceLineEndings(" ")}");
                return Stopped;
            }
            catch (OperationCanceledException) when (closed.IsCancellationRequested)
            {
                return StdinClosed;
            }
        }
    }

    private static void Line(TextWriter output, string line)
    {
        output.WriteLine(line);
        output.Flush();
    }
}
