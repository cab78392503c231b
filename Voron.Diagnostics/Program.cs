using Voron.Diagnostics;

return await DiagnosticsCatalog.RunAsync(args, Console.Out).ConfigureAwait(false);
