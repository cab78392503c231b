using System.Security.Cryptography;
using System.Text.Json;

namespace Voron.Tool.Tests;

/// <summary>
/// An encrypted store through the tool: <c>--key-file</c> and <c>VORON_KEY_FILE</c> in each key
/// file form, the usage errors of a missing or bad key, <c>voron info</c> without the key, and
/// <c>voron key new</c>.
/// </summary>
public sealed class EncryptionKeyFileTests
{
    private static readonly byte[] Key = RandomNumberGenerator.GetBytes(32);

    private static readonly string[] Algorithms = ["AesGcm", "ChaCha20Poly1305"];

    [Fact]
    public async Task Info_says_a_store_is_encrypted_without_the_key_and_no_for_a_plain_store()
    {
        using var temp = new TempDirectory();
        var store = CreateEncrypted(temp.Combine("store"));
        var plain = temp.Combine("plain");
        TestStores.CreateClean(plain);

        var table = await ToolRun.RunAsync("info", store);
        Assert.True(table.ExitCode == ExitCodes.Ok, table.ToString());
        Assert.Matches(@"Encrypted\s*│?\s*yes \((AesGcm|ChaCha20Poly1305)\)", table.Out);
        var json = await ToolRun.RunAsync("info", store, "--json");
        using (var parsed = JsonDocument.Parse(json.Out))
        {
            Assert.True(parsed.RootElement.GetProperty("encrypted").GetBoolean());
            Assert.Contains(parsed.RootElement.GetProperty("encryptionAlgorithm").GetString(), Algorithms);
        }

        var plainTable = await ToolRun.RunAsync("info", plain);
        Assert.Matches(@"Encrypted\s*│?\s*no", plainTable.Out);
    }

    public static TheoryData<string> KeyForms => ["raw", "hex", "base64"];

    [Theory]
    [MemberData(nameof(KeyForms))]
    public async Task A_command_opens_an_encrypted_store_with_the_key_file_in_each_form_given_by_option_or_environment(string form)
    {
        using var temp = new TempDirectory();
        var store = CreateEncrypted(temp.Combine("store"));
        var keyFile = temp.Combine("store.key");
        switch (form)
        {
            case "raw": await File.WriteAllBytesAsync(keyFile, Key); break;
            case "hex": await File.WriteAllTextAsync(keyFile, "  " + Convert.ToHexString(Key).ToLowerInvariant() + "\n"); break;
            default: await File.WriteAllTextAsync(keyFile, Convert.ToBase64String(Key) + "\r\n"); break;
        }

        var byOption = await ToolRun.RunAsync("dump", store, "--tree", "kv", "--key-file", keyFile);
        Assert.True(byOption.ExitCode == ExitCodes.Ok, byOption.ToString());
        Assert.Contains("value 3", byOption.Out, StringComparison.Ordinal);

        var byEnvironment = await ToolRun.RunWithEnvironmentAsync(new Dictionary<string, string> { ["VORON_KEY_FILE"] = keyFile }, "stat", store);
        Assert.True(byEnvironment.ExitCode == ExitCodes.Ok, byEnvironment.ToString());
        Assert.Contains("Decrypted page cache", byEnvironment.Out, StringComparison.Ordinal); // the cache's use, for an encrypted store only

        var json = await ToolRun.RunAsync("stat", store, "--json", "--key-file", keyFile);
        Assert.True(json.ExitCode == ExitCodes.Ok, json.ToString());
        using var parsed = JsonDocument.Parse(json.Out);
        var cache = parsed.RootElement.GetProperty("decryptedPages");
        Assert.Equal(256L << 20, cache.GetProperty("capacityBytes").GetInt64());
        Assert.True(cache.GetProperty("bytes").GetInt64() <= cache.GetProperty("capacityBytes").GetInt64());
    }

    public static TheoryData<string> RefusedCases => ["no key", "wrong key", "key for a plain store", "10 bytes", "63 hex characters", "text", "missing file"];

    [Theory]
    [MemberData(nameof(RefusedCases))]
    public async Task A_missing_wrong_or_malformed_key_is_a_usage_error_saying_what_to_give_and_changes_nothing(string refusedCase)
    {
        using var temp = new TempDirectory();
        var store = temp.Combine("store");
        if (refusedCase == "key for a plain store")
        {
            TestStores.CreateClean(store);
        }
        else
        {
            CreateEncrypted(store);
        }

        var keyFile = temp.Combine("bad.key");
        switch (refusedCase)
        {
            case "wrong key" or "key for a plain store": await File.WriteAllBytesAsync(keyFile, RandomNumberGenerator.GetBytes(32)); break;
            case "10 bytes": await File.WriteAllBytesAsync(keyFile, RandomNumberGenerator.GetBytes(10)); break;
            case "63 hex characters": await File.WriteAllTextAsync(keyFile, Convert.ToHexString(Key)[..63]); break;
            case "text": await File.WriteAllTextAsync(keyFile, "correct horse battery staple\n"); break;
        }

        var before = Snapshot(store);
        var run = refusedCase == "no key"
            ? await ToolRun.RunAsync("stat", store)
            : await ToolRun.RunAsync("stat", store, "--key-file", keyFile);

        Assert.True(run.ExitCode == ExitCodes.Usage, run.ToString());
        var expected = refusedCase switch
        {
            "no key" => "--key-file or VORON_KEY_FILE",
            "wrong key" => "encrypted under another key",
            "key for a plain store" => "is not encrypted",
            "missing file" => $"The key file '{keyFile}' (given by --key-file) does not exist",
            _ => $"The key file '{keyFile}' is not a key",
        };
        Assert.Contains(expected, run.Error, StringComparison.Ordinal);
        var after = Snapshot(store);
        Assert.Equal(before.Keys.Order(), after.Keys.Order());
        Assert.All(before, file => Assert.True(file.Value.AsSpan().SequenceEqual(after[file.Key]), $"{file.Key} changed"));
    }

    [Fact]
    public async Task Backup_restore_and_compact_of_an_encrypted_store_take_the_key_file_and_follow_refuses_one()
    {
        using var temp = new TempDirectory();
        var store = CreateEncrypted(temp.Combine("store"));
        var keyFile = temp.Combine("store.key");
        await File.WriteAllBytesAsync(keyFile, Key);

        var backup = await ToolRun.RunAsync("backup", store, temp.Combine("backup"), "--key-file", keyFile);
        Assert.True(backup.ExitCode == ExitCodes.Ok, backup.ToString());
        var refused = await ToolRun.RunAsync("restore", temp.Combine("backup"), temp.Combine("restored"));
        Assert.True(refused.ExitCode == ExitCodes.Usage, refused.ToString());
        var restore = await ToolRun.RunAsync("restore", temp.Combine("backup"), temp.Combine("restored"), "--key-file", keyFile);
        Assert.True(restore.ExitCode == ExitCodes.Ok, restore.ToString());
        Assert.True(StorageEnvironment.Inspect(temp.Combine("restored")).IsEncrypted);
        var compact = await ToolRun.RunAsync("compact", temp.Combine("restored"), "--key-file", keyFile);
        Assert.True(compact.ExitCode == ExitCodes.Ok, compact.ToString());
        Assert.True(StorageEnvironment.Inspect(temp.Combine("restored")).IsEncrypted);

        var follow = await ToolRun.RunAsync("follow", temp.Combine("destination"), temp.Combine("replica"), "--key-file", keyFile);
        Assert.True(follow.ExitCode == ExitCodes.Usage, follow.ToString());
        Assert.Contains("replicas of an encrypted store are not supported yet", follow.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Key_new_writes_32_random_bytes_readable_by_the_owner_only_and_never_overwrites()
    {
        using var temp = new TempDirectory();
        var file = temp.Combine("new.key");

        var made = await ToolRun.RunAsync("key", "new", file);
        Assert.True(made.ExitCode == ExitCodes.Ok, made.ToString());
        var key = await File.ReadAllBytesAsync(file);
        Assert.Equal(32, key.Length);
        Assert.Contains(key, b => b != 0);
        if (!OperatingSystem.IsWindows())
        {
            Assert.Equal(UnixFileMode.UserRead | UnixFileMode.UserWrite, File.GetUnixFileMode(file));
        }

        var again = await ToolRun.RunAsync("key", "new", file);
        Assert.True(again.ExitCode == ExitCodes.Usage, again.ToString());
        Assert.Contains("never overwrites", again.Error, StringComparison.Ordinal);
        Assert.Equal(key, await File.ReadAllBytesAsync(file));

        var store = temp.Combine("store"); // the key it wrote makes an encrypted store through the tool
        var import = await ToolRun.RunWithInputAsync("""{"name":"a","@metadata":{"@id":"people/1","@collection":"People"}}""" + "\n",
            "import", store, "-", "--key-file", file);
        Assert.True(import.ExitCode == ExitCodes.Ok, import.ToString());
        Assert.True(StorageEnvironment.Inspect(store).IsEncrypted);
    }

    [Fact]
    public async Task Rekey_rewrites_the_store_under_the_new_key_file_and_a_missing_or_bad_new_key_is_a_usage_error()
    {
        using var temp = new TempDirectory();
        var store = CreateEncrypted(temp.Combine("store"));
        var oldKey = temp.Combine("old.key");
        await File.WriteAllTextAsync(oldKey, Convert.ToHexString(Key));
        var newKey = temp.Combine("new.key");
        Assert.Equal(ExitCodes.Ok, (await ToolRun.RunAsync("key", "new", newKey)).ExitCode);
        var bad = temp.Combine("bad.key");
        await File.WriteAllTextAsync(bad, "not a key");

        var refused = await ToolRun.RunAsync("rekey", store, "--key-file", oldKey, "--new-key-file", bad);
        Assert.Equal(ExitCodes.Usage, refused.ExitCode);
        Assert.Equal(ExitCodes.Usage, (await ToolRun.RunAsync("rekey", store, "--key-file", oldKey)).ExitCode); // --new-key-file is required

        var rekeyed = await ToolRun.RunAsync("rekey", store, "--key-file", oldKey, "--new-key-file", newKey);
        Assert.True(rekeyed.ExitCode == ExitCodes.Ok, rekeyed.ToString());
        Assert.Equal(ExitCodes.Usage, (await ToolRun.RunAsync("dump", store, "--tree", "kv", "--key-file", oldKey)).ExitCode); // the old key no longer fits
        var dumped = await ToolRun.RunAsync("dump", store, "--tree", "kv", "--key-file", newKey);
        Assert.True(dumped.ExitCode == ExitCodes.Ok, dumped.ToString());
        Assert.Contains("value 3", dumped.Out, StringComparison.Ordinal);
    }

    private static string CreateEncrypted(string directory)
    {
        var options = StorageEnvironmentOptions.ForDirectory(directory);
        options.EncryptionKey = Key;
        using var environment = StorageEnvironment.Open(options);
        using var write = environment.BeginWrite();
        var tree = write.CreateTree("kv");
        for (var i = 0; i < 10; i++)
        {
            tree.Put(System.Text.Encoding.UTF8.GetBytes($"key/{i:D3}"), System.Text.Encoding.UTF8.GetBytes($"value {i}"));
        }

        write.Commit();
        return directory;
    }

    private static Dictionary<string, byte[]> Snapshot(string directory) =>
        Directory.GetFiles(directory, "*", SearchOption.AllDirectories).ToDictionary(f => Path.GetRelativePath(directory, f), File.ReadAllBytes);
}
