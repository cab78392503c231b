using Voron.Documents;
using Voron.Documents.Storage;
using Voron.SqliteVfs.Databases;
using Voron.SqliteVfs.Interop.VirtualTables;
using Voron.SqliteVfs.Vfs;

namespace Voron.SqliteVfs.Documents;

/// <summary>DH1: the document store a VFS serves, seen from the page layer: the commit's document half and V16's check.</summary>
internal sealed class DocumentHook(DocumentStore store) : IDocumentHook
{
    public DocumentStore DocumentStore { get; } = store;

    object IDocumentHook.Store => DocumentStore;

    /// <summary>Builds the commit's records and index entries through the write port; runs inside the commit's try (DH2).</summary>
    public IDocumentVersion Prepare(IDocumentChanges changes) =>
        new DocumentCommit(DocumentStore, [.. ((PendingDocuments)changes).All]);

    /// <summary>V16: the store's document version counter (I4) moved, or an in-flight commit carries documents.</summary>
    public bool Changed(Snapshot before, Snapshot after)
    {
        if (after.InFlight.Any(v => v.Documents != null && v.Sequence > before.HeadSequence))
        {
            return true;
        }

        return ReadPort.VersionCounter(before.Store, DocumentStore.Environment.Path) !=
               ReadPort.VersionCounter(after.Store, DocumentStore.Environment.Path);
    }

    /// <summary>Binds <paramref name="store"/> (null: none, as voron.so over a store without documents) to <paramref name="vfs"/> and registers the modules.</summary>
    public static void Attach(NativeVfs vfs, DocumentStore? store)
    {
        VoronSqlite.RegisterModules(Modules.Instance);
        if (store != null)
        {
            vfs.BindDocuments(new DocumentHook(store));
        }
    }

    /// <summary>voron_docs and voron_collection (SD1), and V14's conflicts.</summary>
    private sealed class Modules : IDocumentModules
    {
        public static readonly Modules Instance = new();

        IReadOnlyList<VirtualTableModule> IDocumentModules.Modules { get; } = [new DocsModule(), new CollectionModule()];

        public bool IsConflict(Exception error) => error is ConcurrencyException or UniqueConstraintException;
    }
}
