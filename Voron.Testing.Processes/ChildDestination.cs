using Azure.Storage.Blobs;
using Voron.ObjectStorage;

namespace Voron.Testing.Processes;

/// <summary>
/// The archive destination a child's last arguments name: <c>dir &lt;remote&gt;</c>,
/// <c>s3 &lt;endpoint&gt; &lt;bucket&gt; &lt;prefix&gt;</c> (s3rver's fixed credentials) or
/// <c>azure &lt;connection string&gt; &lt;container&gt; &lt;prefix&gt;</c>.
/// </summary>
internal static class ChildDestination
{
    internal const string Usage = "dir <remote> | s3 <endpoint> <bucket> <prefix> | azure <connection string> <container> <prefix>";

    internal static IArchiveDestination Parse(string[] arguments) => arguments switch
    {
        ["dir", var remote] => new DirectoryArchiveDestination(remote),
        ["s3", var endpoint, var bucket, var prefix] => S3ArchiveDestination.ForEndpoint(new Uri(endpoint), bucket, "S3RVER", "S3RVER", prefix),
        ["azure", var connection, var container, var prefix] => new AzureBlobArchiveDestination(new BlobContainerClient(connection, container), prefix),
        _ => throw new ArgumentException($"a destination is '{Usage}', not '{string.Join(' ', arguments)}'", nameof(arguments)),
    };
}
