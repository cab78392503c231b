namespace Voron.SqliteVfs.Interop.VirtualTables;

/// <summary>
/// A SQLite virtual-table module written in C#: <see cref="VirtualTableRegistry"/> gives it a
/// native sqlite3_module whose callbacks call these methods. Exceptions never cross into native
/// code: the registry turns them into a result code and an error message (VirtualTableException).
/// </summary>
internal abstract class VirtualTableModule
{
    /// <summary>The module's name in SQL (<c>USING name(...)</c>, or the eponymous table's name).</summary>
    public abstract string Name { get; }

    /// <summary>
    /// True: an eponymous-only module (xCreate null): it is used as <c>SELECT ... FROM name(...)</c>
    /// and cannot be named in CREATE VIRTUAL TABLE. False: an ordinary module.
    /// </summary>
    public virtual bool EponymousOnly => false;

    /// <summary>
    /// xCreate (<paramref name="create"/> true: CREATE VIRTUAL TABLE) or xConnect (a connection
    /// opening a table whose definition the database holds, or an eponymous use). The registry
    /// declares <see cref="VirtualTable.Declaration"/> with sqlite3_declare_vtab.
    /// </summary>
    public abstract VirtualTable Connect(VirtualTableContext context, bool create);
}

/// <summary>What xCreate / xConnect receive.</summary>
/// <param name="Db">The connection (sqlite3*).</param>
/// <param name="ModuleName">argv[0].</param>
/// <param name="Schema">argv[1]: "main", "temp" or an attached database's name.</param>
/// <param name="TableName">argv[2].</param>
/// <param name="Arguments">argv[3..]: the module arguments, as SQLite passes them (unparsed, untrimmed).</param>
internal sealed record VirtualTableContext(nint Db, string ModuleName, string Schema, string TableName, IReadOnlyList<string> Arguments);
