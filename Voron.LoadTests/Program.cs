using Voron.LoadTests;

return await CommandLine.RunAsync(args, Console.Out).ConfigureAwait(false);
