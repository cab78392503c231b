using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.TestHost;
using Voron.Documents.AspNetCore;

namespace Voron.Tests.AspNetCore;

public sealed class ChangeStreamOptionsTests
{
    [Fact]
    public void A_keep_alive_interval_longer_than_a_timer_takes_is_refused_when_mapped()
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.WebHost.UseTestServer();
        using var app = builder.Build();

        // a longer wait throws from Task.Delay at every idle wait of the stream
        var tooLong = Assert.Throws<ArgumentOutOfRangeException>(() => app.MapDocumentChanges(configure: o => o.KeepAliveInterval = TimeSpan.FromDays(50)));
        Assert.Contains("KeepAliveInterval must be at most", tooLong.Message, StringComparison.Ordinal);
        app.MapDocumentChanges("/longest", o => o.KeepAliveInterval = TimeSpan.FromMilliseconds(uint.MaxValue - 1));
        app.MapDocumentChanges("/none", o => o.KeepAliveInterval = Timeout.InfiniteTimeSpan);
    }
}
