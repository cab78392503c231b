using System.Diagnostics;
using System.Diagnostics.Metrics;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Voron.Documents.AspNetCore.Logging;

namespace Voron.Documents.AspNetCore.Hosting;

// Design notes — a document store hosted in an ASP.NET Core app.
//
//   AddVoronDocumentStore (one registration per name)
//     -> options bound, then validated when the host starts (ValidateOnStart: a bad one fails the start)
//     -> DocumentStoresHostedService.StartAsync -> OpenAsync: the engine, the store, the indexes
//     -> requests: the DocumentStore singleton is this host's store; IAsyncDocumentSession per scope
//     -> DocumentStoresHostedService.StopAsync -> Close: the store, then the engine
//
// Rules:
//   H1. One open per registration. The host opens the engine (StorageEnvironment) itself, so it can
//       hook the flush statistics and the engine options, then the store over it; it owns both and
//       closes the store before the engine. Opening at start makes a store that cannot be opened
//       fail the start, naming the store and the path.
//   H2. Close runs in the hosted service's StopAsync. WebApplication registers the web server's
//       hosted service after every other, so the server stops first (requests drained) and this
//       runs after it; closing the engine completes queued saves, flushes, and releases the lock
//       file before the host's StopAsync returns, so another host can open the directory at once.
//   H3. A closed host never reopens: resolving the store afterwards throws ObjectDisposedException.
//   H4. Nothing is logged on a request's path: slow commits are measured per journal record (one per
//       merged transaction), flush statistics per flush, and each checks its level first.
//   H5. A failed store (fail-stop) is logged once, when first seen: the engine's
//       StorageEnvironmentOptions.OnFailure logs it as the store fails (the host chains it before
//       the app's own observer), the health check reads StorageEnvironment.Failure (ProbeFailure),
//       and the exception handler reports the EnvironmentFailedException a request met.
//   H6. An open failure is reported once. At start the generic host logs every hosted service's
//       start failure itself ("Hosting failed to start", with the exception) and rethrows it, so
//       the hosted service does not log it too; an open on first use (OpenOnStart = false) logs
//       event 2. The exception is DocumentStoreOpenException, which prints a locked store (an
//       environmental refusal whose message names the lock file) as one line without a stack trace.
//       An app ends cleanly by catching it around app.Run() (samples/DocumentsApi returns 1);
//       uncaught, the runtime prints it as unhandled and aborts (exit code 134).
//   H7. A replica (VoronDocumentStoreBuilder.AsReadReplica) is opened with the same engine hooks as a
//       primary (H1, H5) and writes nothing: the indexes the app ensures are only looked up, and one
//       the replica does not hold ready as defined is logged once at open (event 8) instead of
//       built (the primary builds it; queries that need it are refused until the replica applied
//       it). The health check reports the replica's state and lag (VoronHealthCheck.cs).

/// <summary>One registered store: opens it, hands it out, watches it, closes it (H1–H7).</summary>
internal sealed class DocumentStoreHost : IDisposable
{
    private readonly DocumentStoreOptions _options;
    private readonly IMeterFactory? _meterFactory;
    private readonly ILogger _logger;
    private readonly IServiceProvider _services; // UseEncryptionKey's callback gets them
    private readonly string _describe;

    // Guarded by _gate: the state of the store.
    private readonly SemaphoreSlim _gate = new(1, 1);
    private StorageEnvironment? _environment;
    private DocumentStore? _store;
    private SlowCommitListener? _slowCommits;
    private Exception? _openFailure;
    private bool _closed;

    private Exception? _failure;

    private DocumentStoreHost(string name, DocumentStoreOptions options, DocumentStoreHostingOptions hosting, ILoggerFactory loggerFactory, IMeterFactory? meterFactory,
        IServiceProvider services)
    {
        _services = services;
        Name = name;
        _options = options;
        Hosting = hosting;
        _meterFactory = meterFactory;
        _logger = loggerFactory.CreateLogger(DocumentStoreLog.Category);
        _describe = DocumentStoreRegistration.Describe(name);
    }

    public static DocumentStoreHost Create(IServiceProvider provider, string name)
    {
        EncryptionKeySettings.ThrowIfConfigured(provider.GetService<Microsoft.Extensions.Configuration.IConfiguration>());
        return new DocumentStoreHost(
            name,
            provider.GetRequiredService<IOptionsMonitor<DocumentStoreOptions>>().Get(name),
            provider.GetRequiredService<IOptionsMonitor<DocumentStoreHostingOptions>>().Get(name),
            provider.GetService<ILoggerFactory>() ?? Microsoft.Extensions.Logging.Abstractions.NullLoggerFactory.Instance,
            provider.GetService<IMeterFactory>(),
            provider);
    }

    public string Name { get; }

    public DocumentStoreHostingOptions Hosting { get; }

    /// <summary>The engine, once open (null before, and after a failed open).</summary>
    public StorageEnvironment? Environment => Volatile.Read(ref _environment);

    /// <summary>Where the store lives (before it opens: the configured path).</summary>
    public string Path => Environment?.Path ?? (_options.InMemory ? "(in memory)" : System.IO.Path.GetFullPath(_options.Path!));

    /// <summary>Whether the store lives in memory (no disk to watch).</summary>
    public bool InMemory => _options.InMemory;

    /// <summary>The failure that stopped the store, once seen (H5).</summary>
    public Exception? Failure => Volatile.Read(ref _failure);

    /// <summary>Why the last open failed, or null.</summary>
    public Exception? OpenFailure => Volatile.Read(ref _openFailure);

    public bool IsClosed => Volatile.Read(ref _closed);

    /// <summary>The open store; opens it first when it was not opened at start (the first resolve waits for it).</summary>
    public DocumentStore GetStore()
    {
        if (Volatile.Read(ref _store) is { } store && !IsClosed)
        {
            return store;
        }

        // Only with OpenOnStart = false: the container's factories are synchronous.
        return Task.Run(() => OpenAsync(logFailure: true, CancellationToken.None)).GetAwaiter().GetResult();
    }

    /// <summary>
    /// Opens the engine and the store and ensures the indexes (H1); returns the open store. A failure
    /// throws <see cref="DocumentStoreOpenException"/>, logged here only when <paramref name="logFailure"/>
    /// (an open on first use): at start the host logs it itself, once (H6).
    /// </summary>
    public async Task<DocumentStore> OpenAsync(bool logFailure, CancellationToken cancellationToken)
    {
        await _gate.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            ObjectDisposedException.ThrowIf(_closed, this); // H3
            if (_store != null)
            {
                return _store;
            }

            var started = Stopwatch.GetTimestamp();
            StorageEnvironment? environment = null;
            DocumentStore? store = null;
            try
            {
                environment = OpenEnvironment();
                store = DocumentStore.Open(environment, _options, _meterFactory);
                foreach (var index in Hosting.Indexes)
                {
                    if (environment.Replica != null)
                    {
                        CheckReplicaIndex(store, index); // H7
                    }
                    else if (await store.EnsureIndexAsync(index, progress: null, cancellationToken).ConfigureAwait(false))
                    {
                        var description = index.ToString();
                        DocumentStoreLog.IndexEnsured(_logger, _describe, description);
                    }
                }
            }
            catch (Exception e) when (e is not OperationCanceledException)
            {
                store?.Dispose();
                environment?.Dispose();
                var failure = new DocumentStoreOpenException(
                    $"Voron document store{_describe} could not be opened at '{Path}': {e.Message}", Path, e);
                Volatile.Write(ref _openFailure, failure);
                if (logFailure)
                {
                    // H6: a locked store is one line; its stack trace says nothing the message does not.
                    DocumentStoreLog.StoreOpenFailed(_logger, _describe, Path, e.Message, e is StoreLockedException ? null : e);
                }

                throw failure;
            }
            catch
            {
                store?.Dispose();
                environment?.Dispose();
                throw;
            }

            _slowCommits = SlowCommitListener.Start(_logger, _describe, environment.Path, Hosting.SlowCommitThreshold);
            Volatile.Write(ref _openFailure, null);
            Volatile.Write(ref _environment, environment);
            Volatile.Write(ref _store, store);
            var elapsedMs = Stopwatch.GetElapsedTime(started).TotalMilliseconds;
            DocumentStoreLog.StoreOpened(_logger, _describe, environment.Path, elapsedMs, environment.LastCommittedTransactionId, _options.Durability);

            return store;
        }
        finally
        {
            _gate.Release();
        }
    }

    /// <summary>The engine: the store at the path, or a read replica there when <see cref="DocumentStoreHostingOptions.ReplicaOf"/> is set (H7).</summary>
    private StorageEnvironment OpenEnvironment()
    {
        if (Hosting.ReplicaOf is not { } destination)
        {
            return StorageEnvironment.Open(Configure(Hosting.EnvironmentOptionsFactory?.Invoke(_options)
                ?? (_options.InMemory ? StorageEnvironmentOptions.CreateInMemory() : StorageEnvironmentOptions.ForDirectory(_options.Path!))));
        }

        if (_options.InMemory)
        {
            throw new ArgumentException("A read replica (AsReadReplica) keeps its own store on disk: set DocumentStoreOptions.Path, not InMemory.");
        }

        var replica = Hosting.Replica ?? new ReplicaOptions();
        return StorageEnvironment.OpenReplica(destination, _options.Path!, new ReplicaOptions
        {
            Lineage = replica.Lineage,
            PollInterval = replica.PollInterval,
            Configure = options =>
            {
                replica.Configure?.Invoke(options);
                Configure(options);
            },
        });
    }

    /// <summary>H7: an index the app ensures is looked up on a replica; one it does not hold ready as defined is logged, not built.</summary>
    private void CheckReplicaIndex(DocumentStore store, IndexDefinition index)
    {
        var found = store.GetIndexes(index.Collection).FirstOrDefault(i => i.Definition.Name == index.Name);
        var reason = found == null ? "not defined" : !found.Definition.Equals(index) ? "defined otherwise" : found.IsReady ? null : "still being built";
        if (reason != null)
        {
            DocumentStoreLog.ReplicaIndexMissing(_logger, _describe, index.ToString(), reason);
        }
    }

    /// <summary>The engine's options: the store's settings, the flush log hook, then the app's changes.</summary>
    private StorageEnvironmentOptions Configure(StorageEnvironmentOptions options)
    {
        // The same mapping DocumentStore.Open(DocumentStoreOptions) makes.
        options.Durability = _options.Durability;
        options.LazyFlushInterval = _options.LazyFlushInterval;
        if (Hosting.EncryptionKey is { } key)
        {
            options.EncryptionKeyProvider = _options.EncryptionKeyProvider is null
                ? _ => key(_services)
                : throw new InvalidOperationException($"Voron document store{_describe}: both UseEncryptionKey and DocumentStoreOptions.EncryptionKeyProvider " +
                    "give a key. Keep one.");
        }
        else
        {
            options.EncryptionKeyProvider = _options.EncryptionKeyProvider;
        }

        options.OnFlush = statistics =>
        {
            if (_logger.IsEnabled(LogLevel.Debug))
            {
                DocumentStoreLog.Flushed(_logger, _describe, statistics.Transactions, statistics.UpToTransactionId, statistics.Pages,
                    statistics.Bytes, statistics.Seeks, statistics.Duration.TotalMilliseconds);
            }
        };
        foreach (var configure in Hosting.EnvironmentConfigurations)
        {
            configure(options);
        }

        // H5: logged as the store fails; the app's own observer, if it set one, runs after.
        var appObserver = options.OnFailure;
        options.OnFailure = cause =>
        {
            ReportFailure(new EnvironmentFailedException(Path, cause));
            appObserver?.Invoke(cause);
        };
        return options;
    }

    /// <summary>
    /// Whether the store has failed (fail-stop), checked now (H5): the engine's
    /// <see cref="StorageEnvironment.Failure"/>, reported (and logged, once) when first seen here.
    /// Never waits: it takes no lock of the engine.
    /// </summary>
    public Exception? ProbeFailure()
    {
        if (Failure == null && !IsClosed && Environment is { Failure: { } cause } environment)
        {
            ReportFailure(new EnvironmentFailedException(environment.Path, cause));
        }

        return Failure;
    }

    /// <summary>Records and logs (once) that the store failed (H5).</summary>
    public void ReportFailure(EnvironmentFailedException failure)
    {
        if (Interlocked.CompareExchange(ref _failure, failure, null) == null && _logger.IsEnabled(LogLevel.Critical))
        {
            DocumentStoreLog.StoreFailed(_logger, _describe, Path, failure.InnerException?.Message ?? failure.Message, failure);
        }
    }

    /// <summary>Closes the store and the engine (H2); later resolves throw (H3).</summary>
    public void Close()
    {
        _gate.Wait();
        try
        {
            if (_closed)
            {
                return;
            }

            _closed = true;
            _slowCommits?.Dispose();
            if (_store is { } store && _environment is { } environment)
            {
                var started = Stopwatch.GetTimestamp();
                store.Dispose();
                environment.Dispose();
                var elapsedMs = Stopwatch.GetElapsedTime(started).TotalMilliseconds;
                DocumentStoreLog.StoreClosed(_logger, _describe, environment.Path, elapsedMs);
            }
        }
        finally
        {
            _gate.Release();
        }
    }

    public void Dispose() => Close();
}
