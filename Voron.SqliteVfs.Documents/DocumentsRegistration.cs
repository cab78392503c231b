using Voron.Documents;
using Voron.SqliteVfs.Documents;

namespace Voron.SqliteVfs;

/// <summary>SQL over documents on a <see cref="VoronSqliteRegistration"/>: <c>voron_docs</c> and <c>voron_collection</c>.</summary>
public static class DocumentsRegistration
{
    extension(VoronSqliteRegistration registration)
    {
        /// <summary>The document store bound with <see cref="UseDocuments"/>, or null.</summary>
        public DocumentStore? Documents => (registration.Vfs.Documents as DocumentHook)?.DocumentStore;

        /// <summary>
        /// Binds <paramref name="store"/> (opened over this registration's <see cref="VoronSqliteRegistration.Environment"/>)
        /// to this VFS, so SQL on its databases can reach the documents: <c>CREATE VIRTUAL TABLE
        /// orders USING voron_docs(Order, ...)</c> and <c>voron_collection('Order')</c>. One store per
        /// registration; call it once, before opening connections that use those tables.
        /// </summary>
        /// <returns>This registration, for chaining.</returns>
        /// <exception cref="ArgumentException">The store is over another environment.</exception>
        /// <exception cref="InvalidOperationException">Another store is bound already.</exception>
        public VoronSqliteRegistration UseDocuments(DocumentStore store)
        {
            ArgumentNullException.ThrowIfNull(store);
            registration.ThrowIfDisposed();
            if (!ReferenceEquals(store.Environment, registration.Environment))
            {
                throw new ArgumentException(
                    $"The document store is over the store '{store.Environment.Path}', but Vfs={registration.VfsName} serves '{registration.Environment.Path}'. " +
                    "Open the DocumentStore over the registration's environment: DocumentStore.Open(registration.Environment).", nameof(store));
            }

            DocumentHook.Attach(registration.Vfs, store);
            return registration;
        }
    }
}
