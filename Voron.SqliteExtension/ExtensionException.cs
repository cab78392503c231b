namespace Voron.SqliteExtension;

/// <summary>A failure of voron_open or voron_close whose message is the SQL error, as is.</summary>
internal sealed class ExtensionException(string message, Exception? inner = null) : Exception(message, inner);
