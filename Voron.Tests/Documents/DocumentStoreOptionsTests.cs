using System.Diagnostics;
using System.Diagnostics.Metrics;
using Microsoft.Extensions.Configuration;

namespace Voron.Tests.Documents;

public sealed class DocumentStoreOptionsTests
{
    private static readonly TestJson Json = TestJson.Default;

    [Fact]
    public void Options_bind_from_configuration()
    {
        var configuration = new ConfigurationBuilder().AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["Documents:Path"] = "/var/lib/app/docs",
            ["Documents:Durability"] = "Lazy",
            ["Documents:LazyFlushInterval"] = "00:00:00.250",
            ["Documents:MaxDocumentBytes"] = "1048576",
            ["Documents:CompressionThresholdBytes"] = "4096",
            ["Documents:OptimisticConcurrency"] = "false",
            ["Documents:BulkInsertBatchSize"] = "5000",
        }).Build();
        var options = new DocumentStoreOptions();
        configuration.GetSection("Documents").Bind(options);
        Assert.Equal("/var/lib/app/docs", options.Path);
        Assert.Equal(DurabilityMode.Lazy, options.Durability);
        Assert.Equal(TimeSpan.FromMilliseconds(250), options.LazyFlushInterval);
        Assert.Equal(1 << 20, options.MaxDocumentBytes);
        Assert.Equal(4096, options.CompressionThresholdBytes);
        Assert.False(options.OptimisticConcurrency);
        Assert.Equal(5000, options.BulkInsertBatchSize);
        options.Validate();
    }

    [Fact]
    public async Task Without_optimistic_concurrency_the_last_write_wins()
    {
        await using var store = DocumentTestStore.InMemory(o => o.OptimisticConcurrency = false);
        await using (var setup = store.OpenSession())
        {
            setup.Store(DocumentTestStore.NewUser("a", 1), Json.User, "users/a");
            await setup.SaveChangesAsync();
        }

        await using var first = store.OpenSession();
        await using var second = store.OpenSession();
        (await first.LoadAsync("users/a", Json.User))!.Age = 10;
        (await second.LoadAsync("users/a", Json.User))!.Age = 20;
        await first.SaveChangesAsync();
        await second.SaveChangesAsync();
        await using var check = store.OpenSession();
        Assert.Equal(20, (await check.LoadAsync("users/a", Json.User))!.Age);
    }

    [Fact]
    public async Task Operations_are_measured_and_traced_with_the_database_conventions()
    {
        await using var store = DocumentTestStore.InMemory();
        var measurements = new List<(string Instrument, double Value, Dictionary<string, object?> Tags)>();
        using var listener = new MeterListener();
        listener.InstrumentPublished = (instrument, l) =>
        {
            if (instrument.Meter.Name == DocumentsDiagnostics.MeterName)
            {
                l.EnableMeasurementEvents(instrument);
            }
        };
        void Record<T>(Instrument instrument, T value, ReadOnlySpan<KeyValuePair<string, object?>> tags, object? state)
        {
            var copy = new Dictionary<string, object?>();
            foreach (var tag in tags)
            {
                copy[tag.Key] = tag.Value;
            }

            if (Equals(copy.GetValueOrDefault("db.namespace"), store.Path))
            {
                lock (measurements)
                {
                    measurements.Add((instrument.Name, Convert.ToDouble(value, System.Globalization.CultureInfo.InvariantCulture), copy));
                }
            }
        }

        listener.SetMeasurementEventCallback<double>(Record);
        listener.SetMeasurementEventCallback<int>(Record);
        listener.SetMeasurementEventCallback<long>(Record);
        listener.Start();

        var activities = new List<Activity>();
        using var tracer = new ActivityListener
        {
            ShouldListenTo = source => source.Name == DocumentsDiagnostics.ActivitySourceName,
            Sample = (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllDataAndRecorded,
            ActivityStopped = activity =>
            {
                if (Equals(activity.GetTagItem("db.namespace"), store.Path))
                {
                    lock (activities)
                    {
                        activities.Add(activity);
                    }
                }
            },
        };
        ActivitySource.AddActivityListener(tracer);

        await using (var session = store.OpenSession())
        {
            session.Store(DocumentTestStore.NewUser("a", 1), Json.User, "users/a");
            await session.SaveChangesAsync();
            await session.LoadAsync("users/a", Json.User);
            await Assert.ThrowsAsync<NotSupportedException>(() => session.Query(Json.User).Where(u => u.Age == 1).ToListAsync());
        }

        var durations = measurements.Where(m => m.Instrument == DocumentsDiagnostics.OperationDuration).ToList();
        Assert.Contains(durations, m => (string?)m.Tags["db.operation.name"] == "save_changes" && (string?)m.Tags["db.collection.name"] == "User" && (string?)m.Tags["db.system.name"] == "voron");
        Assert.Contains(durations, m => (string?)m.Tags["db.operation.name"] == "load");
        Assert.Contains(durations, m => (string?)m.Tags["db.operation.name"] == "query" && (string?)m.Tags["error.type"] == typeof(NotSupportedException).FullName);
        Assert.Contains(measurements, m => m.Instrument == DocumentsDiagnostics.DocumentsWritten && m.Value == 1);
        Assert.Contains(activities, a => a.DisplayName == "save_changes User" && a.Kind == ActivityKind.Client);
        Assert.Contains(activities, a => a.DisplayName == "query User" && a.Status == ActivityStatusCode.Error);
    }

    [Fact]
    public async Task Reflection_conveniences_work_without_a_JsonTypeInfo()
    {
        await using var store = DocumentTestStore.InMemory();
        await store.EnsureIndexAsync(store.IndexFor<User>("users_by_age", u => u.Age));
        await using (var session = store.OpenSession())
        {
            session.Store(DocumentTestStore.NewUser("a", 7));
            await session.SaveChangesAsync();
        }

        Assert.Equal(2, await store.BulkInsertAsync([DocumentTestStore.NewUser("b", 7), DocumentTestStore.NewUser("c", 8)]));
        await using (var session = store.OpenSession())
        {
            Assert.Equal("a", (await session.LoadAsync<User>("User/1"))!.Name);
            Assert.Equal(2, await session.Query<User>().CountAsync(u => u.Age == 7));
        }
    }
}
