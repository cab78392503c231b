namespace Voron.Tests.Engine;

/// <summary>The README's Voron.Core quick start, kept compiling and passing (over an in-memory store).</summary>
public sealed class ReadmeExampleTests
{
    [Fact]
    public void Quick_start_from_the_readme_runs_as_written()
    {
        using var env = StorageEnvironment.Open(StorageEnvironmentOptions.CreateInMemory());

        using (var tx = env.BeginWrite())
        {
            var users = tx.CreateTree("users");
            users.Put("users/1"u8, "{\"name\":\"Ada\"}"u8);
            tx.Commit();
        }

        using (var read = env.BeginRead())
        {
            var users = read.OpenTree("users")!;
            Assert.True(users.TryGet("users/1"u8, out var json));
            Assert.Equal("{\"name\":\"Ada\"}"u8.ToArray(), json.ToArray());

            var it = users.Iterate();
            var seen = 0;
            for (var more = it.SeekPrefix("users/"u8); more && it.Key.StartsWith("users/"u8); more = it.MoveNext())
            {
                seen++;
            }

            Assert.Equal(1, seen);
        }
    }
}
