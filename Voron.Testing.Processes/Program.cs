using System.Globalization;
using Voron.Testing.Processes;

// The child processes that Voron.Tests starts and kills (ProcessKillTests, SqlProcessKillTests,
// RealFileSystemTests), kept out of Voron.LoadTests so that the tests build without the load
// tests' peers:
//   crash-child <dir> <seed> <run> [lazy|sql|sql-docs|portable|portable-lazy]   (CrashChild.cs, SqlCrashChild.cs, DocsCrashChild.cs)
//   ship-child <dir> <archive> <seed> <run> <destination>   (ShipCrashChild.cs)
//   follow-child <replica dir> <lineage> <until tx> <destination>   (FollowChild.cs: CrossProcessReplicaTests)
// where <destination> is dir <remote> | s3 <endpoint> <bucket> <prefix> | azure <connection string> <container> <prefix> (ChildDestination.cs)
// and the ones Voron.Tool.Tests runs:
//   hold <dir>        open the store until standard input closes (HoldChild.cs)
//   unflushed <dir>   make a store whose last transactions are only in the journal (UnflushedChild.cs)
// The tests run it as `dotnet Voron.Testing.Processes.dll ...` from their own output directory.
if (args is [HoldChild.Command, var held])
{
    return HoldChild.Run(held, Console.In, Console.Out);
}

if (args is [UnflushedChild.Command, var unflushed])
{
    return UnflushedChild.Run(unflushed, Console.Out);
}

if (args.Length >= 6 && args[0] == ShipCrashChild.Command)
{
    return ShipCrashChild.Run(args[1], args[2], int.Parse(args[3], CultureInfo.InvariantCulture), int.Parse(args[4], CultureInfo.InvariantCulture),
        ChildDestination.Parse(args[5..]), Console.Out);
}

if (args.Length >= 5 && args[0] == FollowChild.Command)
{
    return await FollowChild.RunAsync(args[1], args[2], long.Parse(args[3], CultureInfo.InvariantCulture), ChildDestination.Parse(args[4..]), Console.In, Console.Out)
        .ConfigureAwait(false);
}

string[] modes = [CrashChild.Lazy, CrashChild.Sql, CrashChild.SqlDocs, CrashChild.Portable, CrashChild.PortableLazy];
if (args.Length is < 4 or > 5 || args[0] != CrashChild.Command ||
    !int.TryParse(args[2], NumberStyles.Integer, CultureInfo.InvariantCulture, out var seed) ||
    !int.TryParse(args[3], NumberStyles.Integer, CultureInfo.InvariantCulture, out var run) ||
    (args.Length == 5 && !modes.Contains(args[4])))
{
    await Console.Error.WriteLineAsync($"usage: {CrashChild.Command} <dir> <seed> <run> [{string.Join('|', modes)}] | {HoldChild.Command} <dir> | {UnflushedChild.Command} <dir>").ConfigureAwait(false);
    return 1;
}

var directory = args[1];
var mode = args.Length == 5 ? args[4] : null;
return mode == CrashChild.Sql ? SqlCrashChild.Run(directory, seed, run, Console.Out)
    : mode == CrashChild.SqlDocs ? DocsCrashChild.Run(directory, seed, run, Console.Out)
    : await CrashChild.RunAsync(
        directory, seed, run,
        lazy: mode is CrashChild.Lazy or CrashChild.PortableLazy,
        Console.Out,
        portable: mode is CrashChild.Portable or CrashChild.PortableLazy).ConfigureAwait(false);
