using System.CommandLine;
using Voron.Sealing;

namespace Voron.Tool.Commands;

/// <summary>
/// <c>voron rekey &lt;store&gt; --new-key-file FILE</c>: <see cref="StorageEnvironment.RekeyAsync"/>,
/// offline (it takes the store's lock). The current key comes from <c>--key-file</c> or
/// <c>VORON_KEY_FILE</c> (none: the store is not encrypted yet, and this encrypts it).
/// </summary>
internal static class RekeyCommand
{
    public static Command Create(ToolConsole console)
    {
        var store = new Argument<string>("store") { Description = "the store's directory (closed: rekeying takes its lock)" };
        var newKey = new Option<string>("--new-key-file")
        {
            Description = "the key the store is rewritten under (the forms --key-file takes; make one with 'voron key new FILE')",
            HelpName = "FILE",
            Required = true,
        };
        var command = new Command("rekey", "rewrite a closed store under a new key and swap the copy in (or encrypt a store that is not; the current key: --key-file)")
        {
            store, newKey,
        };
        command.SetAction((result, cancellationToken) => RunAsync(console, result.GetValue(store)!, result.GetValue(newKey)!, cancellationToken));
        return command;
    }

    private static async Task<int> RunAsync(ToolConsole console, string store, string newKeyFile, CancellationToken cancellationToken)
    {
        var directory = StoreAccess.RequireStore(store);
        byte[] key;
        try
        {
            key = EncryptionKeyFile.Read(newKeyFile);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or FormatException or ArgumentException)
        {
            throw new ToolException(ExitCodes.Usage, $"--new-key-file '{newKeyFile}': {e.Message}");
        }

        var options = StoreAccess.Options(directory);
        var rekeyed = await ToolProgress.RunAsync(console, progress =>
            StorageEnvironment.RekeyAsync(options, key, ResultPrinter.Forward(progress), cancellationToken)).ConfigureAwait(false);
        ResultPrinter.Write(console.Out,
            ("rekeyed", directory),
            ("transaction", rekeyed.TransactionId),
            ("data file", ResultPrinter.Bytes(rekeyed.DataFileBytesAfter)),
            ("duration", rekeyed.Duration));
        console.Out.WriteLine("Open it with the new key from now on; backups and archives taken before keep the old one.");
        return ExitCodes.Ok;
    }
}
