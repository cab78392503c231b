namespace Voron.Testing.Crash;

/// <summary>A crash state broke the oracle; the message says which rule, what was found and how to replay.</summary>
internal sealed class CrashCheckException(string message, Exception? inner = null) : Exception(message, inner);
