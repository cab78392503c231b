namespace Voron.Tests.Core.Archive;

/// <summary>The directory destination keeps the IArchiveDestination contract (AD1..AD6).</summary>
public sealed class DirectoryArchiveDestinationTests(ITestOutputHelper output)
{
    [Fact]
    public async Task A_directory_destination_keeps_the_destination_contract()
    {
        var seed = TestSeed.Next(output, nameof(A_directory_destination_keeps_the_destination_contract));
        using var temp = new TempDirectory();
        await ArchiveDestinationContract.CheckAllAsync(new DirectoryArchiveDestination(temp.Combine("remote")), seed);
    }

    [Fact]
    public async Task A_temporary_file_left_by_a_crashed_put_is_never_listed_and_is_replaced_by_the_next_put()
    {
        using var temp = new TempDirectory();
        var destination = new DirectoryArchiveDestination(temp.Combine("remote"));
        Directory.CreateDirectory(temp.Combine("remote/a"));
        File.WriteAllBytes(temp.Combine("remote/a/b.upload-123456789abc"), [1, 2]);
        Assert.Empty(await ArchiveDestinationContract.KeysAsync(destination, "a/"));
        Assert.True(await destination.PutIfAbsentAsync("a/b", new MemoryStream([3]), 1));
        Assert.Equal(["a/b"], await ArchiveDestinationContract.KeysAsync(destination, "a/"));
        Assert.False(File.Exists(temp.Combine("remote/a/b.upload-123456789abc")));
    }

    [Theory]
    [InlineData("/abs")]
    [InlineData("a/../b")]
    [InlineData("a//b")]
    [InlineData("a b")]
    [InlineData("trailing/")]
    public async Task A_key_that_is_not_a_relative_path_of_plain_characters_is_refused(string key)
    {
        using var temp = new TempDirectory();
        var destination = new DirectoryArchiveDestination(temp.Combine("remote"));
        await Assert.ThrowsAsync<ArgumentException>(() => destination.PutIfAbsentAsync(key, new MemoryStream([1]), 1));
    }
}
