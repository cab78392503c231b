using System.CommandLine;
using System.Globalization;
using Azure.Storage.Blobs;
using Voron.ObjectStorage;

namespace Voron.Tool.Commands;

/// <summary>
/// <c>voron follow &lt;destination&gt; &lt;dir&gt;</c>: a read replica (<see cref="StorageEnvironment.OpenReplica"/>)
/// in <c>dir</c> that follows the journal a primary ships to the destination, printing each
/// transaction it applies and its lag, until Ctrl+C (or <c>--until-transaction</c>); a fail-safe
/// stop ends it with the replica's error, or, with <c>--resnapshot</c>, rebuilds the replica from a
/// snapshot (<see cref="ReplicaOptions.Resnapshot"/>) and goes on.
/// </summary>
internal static class FollowCommand
{
    public static Command Create(ToolConsole console)
    {
        var destination = new Argument<string>("destination")
        {
            Description = "where the primary ships: a directory, s3://bucket/prefix (with --endpoint; AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY) " +
                "or azblob://container/prefix (AZURE_STORAGE_CONNECTION_STRING)",
        };
        var directory = new Argument<string>("dir") { Description = "the replica's directory: empty or missing the first time, the same one to resume" };
        var lineage = new Option<string?>("--lineage") { Description = "the primary's store id (16 hex digits, voron info); needed when the destination holds several", HelpName = "ID" };
        var endpoint = new Option<string?>("--endpoint") { Description = "the S3-compatible service's URL, for an s3:// destination", HelpName = "URL" };
        var interval = new Option<double>("--poll-seconds") { Description = "seconds between passes that find nothing new", DefaultValueFactory = _ => 1, HelpName = "S" };
        var until = new Option<long?>("--until-transaction") { Description = "exit once this transaction is applied (a script's catch-up)", HelpName = "N" };
        var resnapshot = new Option<bool>("--resnapshot")
        {
            Description = "when the replica cannot continue (a gap, a damaged object, a fork), discard it, restore the newest snapshot past the break and go on",
        };
        var command = new Command("follow", "a read replica that follows a primary's shipped journal until Ctrl+C (docs/object-storage.md, Read replicas)")
        {
            destination, directory, lineage, endpoint, interval, until, resnapshot,
        };
        command.SetAction((result, cancellationToken) => RunAsync(console, result.GetValue(destination)!, result.GetValue(directory)!, result.GetValue(lineage),
            result.GetValue(endpoint), result.GetValue(interval), result.GetValue(until), result.GetValue(resnapshot), cancellationToken));
        return command;
    }

    /// <summary>The destination a spec names: a directory, s3://bucket/prefix or azblob://container/prefix.</summary>
    internal static IArchiveDestination OpenDestination(string spec, string? endpoint)
    {
        if (spec.StartsWith("s3://", StringComparison.OrdinalIgnoreCase))
        {
            var (bucket, prefix) = SplitContainer(spec["s3://".Length..], spec);
            var accessKey = Environment.GetEnvironmentVariable("AWS_ACCESS_KEY_ID");
            var secretKey = Environment.GetEnvironmentVariable("AWS_SECRET_ACCESS_KEY");
            if (endpoint == null || !Uri.TryCreate(endpoint, UriKind.Absolute, out var url))
            {
                throw new ToolException(ExitCodes.Usage, $"{spec}: give the service's URL with --endpoint (e.g. https://s3.eu-west-1.amazonaws.com, http://127.0.0.1:9000).");
            }

            if (string.IsNullOrEmpty(accessKey) || string.IsNullOrEmpty(secretKey))
            {
                throw new ToolException(ExitCodes.Usage, $"{spec}: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY to the bucket's credentials.");
            }

            return S3ArchiveDestination.ForEndpoint(url, bucket, accessKey, secretKey, prefix);
        }

        if (spec.StartsWith("azblob://", StringComparison.OrdinalIgnoreCase))
        {
            var (container, prefix) = SplitContainer(spec["azblob://".Length..], spec);
            var connection = Environment.GetEnvironmentVariable("AZURE_STORAGE_CONNECTION_STRING");
            if (string.IsNullOrEmpty(connection))
            {
                throw new ToolException(ExitCodes.Usage, $"{spec}: set AZURE_STORAGE_CONNECTION_STRING to the storage account's connection string.");
            }

            return new AzureBlobArchiveDestination(new BlobContainerClient(connection, container), prefix);
        }

        if (spec.Contains("://", StringComparison.Ordinal))
        {
            throw new ToolException(ExitCodes.Usage, $"'{spec}' is not a destination: give a directory, s3://bucket/prefix or azblob://container/prefix.");
        }

        if (!Directory.Exists(spec))
        {
            throw new ToolException(ExitCodes.Usage, $"No destination at '{spec}': the directory does not exist.");
        }

        return new DirectoryArchiveDestination(Path.GetFullPath(spec));
    }

    private static (string Container, string Prefix) SplitContainer(string rest, string spec)
    {
        var slash = rest.IndexOf('/', StringComparison.Ordinal);
        var container = slash < 0 ? rest : rest[..slash];
        if (container.Length == 0)
        {
            throw new ToolException(ExitCodes.Usage, $"'{spec}' names no bucket or container.");
        }

        return (container, slash < 0 ? "" : rest[(slash + 1)..].Trim('/'));
    }

    private static async Task<int> RunAsync(ToolConsole console, string spec, string directory, string? lineage, string? endpoint, double pollSeconds,
        long? until, bool resnapshot, CancellationToken cancellationToken)
    {
        if (pollSeconds <= 0 || double.IsNaN(pollSeconds))
        {
            throw new ToolException(ExitCodes.Usage, "--poll-seconds must be positive.");
        }

        if (StoreKeyFile.Given)
        {
            throw new ToolException(ExitCodes.Usage, $"A key file was given (--key-file or {StoreKeyFile.EnvironmentVariable}), and replicas of an encrypted store " +
                $"are not supported yet. Follow an unencrypted primary, without --key-file and with {StoreKeyFile.EnvironmentVariable} unset.");
        }

        var options = new ReplicaOptions { Lineage = lineage, PollInterval = TimeSpan.FromSeconds(pollSeconds), Resnapshot = resnapshot };
        var destination = OpenDestination(spec, endpoint);
        try
        {
            while (true)
            {
                using var replica = Open(destination, directory, options);
                var status = replica.Replica!;
                if (status.RebuiltBecause is { } reason)
                {
                    await console.Out.WriteLineAsync($"re-snapshot: the replica in {replica.Path} was rebuilt from a snapshot because: {reason}").ConfigureAwait(false);
                }

                await console.Out.WriteLineAsync($"following lineage {status.Lineage} in {status.Destination} into {replica.Path} from transaction {status.AppliedTransaction}")
                    .ConfigureAwait(false);
                if (await FollowAsync(console, replica, options, until, cancellationToken).ConfigureAwait(false) is { } exit)
                {
                    return exit;
                }
            }
        }
        finally
        {
            (destination as IDisposable)?.Dispose();
        }
    }

    private static StorageEnvironment Open(IArchiveDestination destination, string directory, ReplicaOptions options)
    {
        try
        {
            return StorageEnvironment.OpenReplica(destination, directory, options);
        }
        catch (ReplicaStoppedException e)
        {
            throw new ToolException(ExitCodes.Failed, e.Message, e); // --resnapshot found no snapshot past the break
        }
        catch (Exception e) when (e is ArgumentException or InvalidOperationException and not EnvironmentFailedException)
        {
            throw new ToolException(ExitCodes.Usage, e.Message, e);
        }
    }

    /// <summary>Prints progress until the end: an exit code, or null when a fail-safe stop is to be cured by opening again with Resnapshot.</summary>
    private static async Task<int?> FollowAsync(ToolConsole console, StorageEnvironment replica, ReplicaOptions options, long? until,
        CancellationToken cancellationToken)
    {
        var status = replica.Replica!;
        var printed = status.AppliedTransaction;
        while (true)
        {
            status = replica.Replica!;
            if (status.AppliedTransaction != printed)
            {
                printed = status.AppliedTransaction;
                await console.Out.WriteLineAsync(string.Create(CultureInfo.InvariantCulture,
                    $"applied {status.AppliedTransaction} (committed {status.AppliedCommitTime:O}), newest seen {status.NewestSeenTransaction}, lag {status.Lag.TotalSeconds:0.###} s"))
                    .ConfigureAwait(false);
            }

            if (status.State == ReplicaState.Stopped)
            {
                if (options.Resnapshot && status.ResnapshotWouldRebuild)
                {
                    await console.Out.WriteLineAsync($"stopped at transaction {status.AppliedTransaction}: {status.Error!.Message} Re-snapshotting.").ConfigureAwait(false);
                    return null;
                }

                throw new ToolException(ExitCodes.Failed, $"{status.Error!.Message} The replica in {replica.Path} holds transaction {status.AppliedTransaction}.");
            }

            if (until is { } last && status.AppliedTransaction >= last)
            {
                return ExitCodes.Ok;
            }

            if (status.ConsecutiveFailures > 0)
            {
                await console.Error.WriteLineAsync($"the destination failed {status.ConsecutiveFailures} time(s) in a row, retrying: {status.LastError}").ConfigureAwait(false);
            }

            using var tick = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
            tick.CancelAfter(TimeSpan.FromSeconds(Math.Max(1, options.PollInterval.TotalSeconds)));
            try
            {
                await replica.WaitForTransactionAsync(status.AppliedTransaction + 1, tick.Token).ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
            {
                await console.Out.WriteLineAsync($"stopped at transaction {replica.LastCommittedTransactionId}; run the same command to resume").ConfigureAwait(false);
                return ExitCodes.Ok; // Ctrl+C: the usual end
            }
            catch (OperationCanceledException)
            {
                // the tick: report the status again
            }
            catch (ReplicaStoppedException)
            {
                // reported from the status on the next turn
            }
        }
    }
}
