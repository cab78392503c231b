using System.IO.Hashing;
using Voron.Diagnostics;
using Voron.Diagnostics.Experiments;

namespace Voron.LoadTests.Tests.Diagnostics;

public sealed class ChecksumsExperimentTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    [Fact]
    public async Task Run_reports_every_algorithm_at_every_size()
    {
        using var output = new StringWriter();
        using var context = ExperimentContext.Create(output, quick: true, _directory.Combine("data"));

        var report = await new ChecksumsExperiment(bytesPerRound: 1 << 20, warmUp: TimeSpan.Zero).RunAsync(context);

        using var json = JsonDocument.Parse(report.ToJson());
        var rows = json.RootElement.GetProperty("rows").EnumerateArray().ToList();
        Assert.Equal(ChecksumsExperiment.Sizes.Length * ChecksumsExperiment.Algorithms.Length, rows.Count);
        Assert.All(rows, r => Assert.True(r.GetProperty("MBps").GetDouble() > 0));
        Assert.IsType<ChecksumsExperiment>(DiagnosticsCatalog.Find("checksums"));
    }

    [Fact]
    public void The_engines_checksum_is_crc32c_and_System_IO_Hashings_crc32_is_another_one()
    {
        var check = "123456789"u8.ToArray();

        Assert.Equal(0xE3069283ul, ChecksumsExperiment.Algorithms[0].Hash(check)); // the CRC-32C check value
        Assert.Equal(0xCBF43926u, Crc32.HashToUInt32(check)); // CRC-32 (IEEE): a different checksum, not a faster CRC32C
    }

    public void Dispose() => _directory.Dispose();
}
