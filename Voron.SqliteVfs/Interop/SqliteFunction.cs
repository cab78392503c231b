namespace Voron.SqliteVfs.Interop;

/// <summary>
/// One function of SQLite's C API: its exported name (for the process library) and its slot in
/// <c>sqlite3_api_routines</c> (for a loadable extension; -1 when the table has none).
/// </summary>
internal readonly record struct SqliteFunction(string Export, int Slot);
