using Voron.Archive;

namespace Voron;

public sealed partial class StorageEnvironment
{
    private ArchiveShipper? _shipper;

    /// <summary>How far the journal archive is shipped to <see cref="StorageEnvironmentOptions.ArchiveDestination"/>; null when none is set.</summary>
    public ArchiveShippingStatus? ArchiveShipping => _shipper?.Status;

    /// <summary>
    /// Ships every archived journal file not yet in <see cref="StorageEnvironmentOptions.ArchiveDestination"/>
    /// now, instead of waiting for the background pass; throws what stopped it (the destination's
    /// error). Call <see cref="FlushToDataFile"/> first to release (archive) the journal's older files.
    /// </summary>
    public Task<ArchiveShippingStatus> ShipArchiveAsync(CancellationToken cancellationToken = default)
    {
        ThrowIfUnusable();
        var shipper = _shipper ?? throw new InvalidOperationException("The store ships no archive: set StorageEnvironmentOptions.ArchiveDestination (and JournalArchiveDirectory).");
        return shipper.ShipPendingAsync(cancellationToken);
    }

    internal long ArchiveUploadFailures => _shipper?.UploadFailures ?? 0;

    private static void ValidateShipping(StorageEnvironmentOptions options)
    {
        if (options.ArchiveDestination != null && (options.JournalArchiveDirectory == null || options.InMemory))
        {
            throw new ArgumentException(
                "StorageEnvironmentOptions.ArchiveDestination ships the local journal archive: set JournalArchiveDirectory too (an on-disk store).", nameof(options));
        }

        if (options.ArchiveShippingInterval <= TimeSpan.Zero)
        {
            throw new ArgumentOutOfRangeException(nameof(options), options.ArchiveShippingInterval, "ArchiveShippingInterval must be positive.");
        }

        if (options.ArchiveLeaseDuration <= TimeSpan.Zero)
        {
            throw new ArgumentOutOfRangeException(nameof(options), options.ArchiveLeaseDuration, "ArchiveLeaseDuration must be positive.");
        }
    }

    private void StartShipping()
    {
        if (_options.ArchiveDestination is not { } destination || _options.JournalArchiveDirectory is not { } archive)
        {
            return;
        }

        _shipper = new ArchiveShipper(destination, System.IO.Path.GetFullPath(archive), StoreId, _options.ArchiveShippingInterval, TimeSpan.FromMinutes(1),
            _options.ArchiveLeaseDuration, _options.ArchiveLeaseClock);
        _shipper.Start(_options.ShipArchiveInBackground);
    }

    /// <summary>SH1: stops the background pass (an upload under way is cancelled); waits for the destination only to
    /// hand the writer's lease back, a few seconds at most (LS5).</summary>
    private void StopShipping()
    {
        var shipper = Interlocked.Exchange(ref _shipper, null);
        shipper?.DisposeAsync().AsTask().GetAwaiter().GetResult();
    }
}
