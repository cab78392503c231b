using System.Security.Cryptography;

namespace Voron.Sealing;

// Design notes — encryption at rest ("sealing"). Status: a store opened with a key
// (StorageEnvironmentOptions.SealingKey inside the engine) is created sealed (header format 4), its
// key is checked before recovery (SL5), its journal records are sealed and opened
// (Journal/JournalSealing.cs), and its data-file pages, scratch-file slots, backups and compacted
// copies hold sealed pages only (PG7 in Paging/Pager.cs, SC5 in Scratch/ScratchFile.cs, BK10 in
// Backup/SnapshotCopy.cs, a compacted copy opened with a key); pages are read through the
// decrypted-page cache (OP1–OP5 in Sealing/DecryptedPageCache.cs); page-file blocks (SQLite's
// pages) are sealed by their writer with the nonce and tag in their map entry (PF5, PF6 in
// PageFiles/PageFileFormat.cs). Rekeying is compaction into a copy under the new key
// (StorageEnvironment.RekeyAsync). Not yet: replicas of a sealed store.
//
// Threat model. Someone who reads or changes the store's files — a stolen disk, a copied backup,
// an archive bucket — learns nothing of the keys and values beyond what stays plaintext (below),
// and cannot change one byte of a page or a journal record without the open failing
// (CorruptionException naming the file, offset and page). Out of scope: an attacker inside the
// process (keys and opened pages live in its memory; swap and core dumps are the operating
// system's to protect), and rollback: a whole store, or one page, replaced by an older sealed
// version of itself opens, since an AEAD proves who wrote bytes, not that they are the newest.
//
// What is sealed, where, and by whom:
//   - Data-file pages. Sealed by whoever writes the data file — the flusher's gathered writes,
//     recovery's replay, in-place pages (IP1–IP7), compaction's copy — into a copy made for the
//     write, just before it goes through IStorageFile (SL9). A single page or a whole overflow
//     run is one seal: the header of its first page stays plaintext, the rest of the run is
//     encrypted, the nonce and tag take page-header bytes 24..51 (FORMAT block below).
//     Pager.ReadPage opens a page into a decrypted-page cache kept per page VERSION (page number
//     and the nonce of its seal, which no other version has: OP1): a hot page is decrypted once
//     per version, not per read. An evicted entry's buffer is left to the collector, which keeps
//     it while any reader holds a span into it (OP2). The mapped sealed bytes are never handed to
//     a reader.
//   - Page-file blocks (SQLite's pages). A block is a headerless 8 KiB store page, so its nonce
//     and tag cannot live in it: they go in the block's map entry (PageFiles/PageFileFormat.cs),
//     which grows from 16 to 44 bytes in a sealed store (Page 8, Checksum 4 — of the sealed
//     block —, Reserved 4, Nonce 12, Tag 16). The entry lives in a tree page, itself sealed, so a
//     nonce or tag cannot be swapped without breaking that page's seal. PageSeal.SealBlock and
//     OpenBlock are that seal (AAD: SL3). Since the entry is written by the transaction that
//     writes the block, the block is sealed there, at each write (PF6), not by the pager: its
//     page-table versions, journal images and data-file bytes are all ciphertext, and the pager
//     writes it as it is (SealedPages.IsPageToSeal).
//   - Journal records. The payload is compressed first (ciphertext does not compress), then the
//     stored payload is sealed with RecordSeal under the journal subkey; the 128-byte record
//     header stays plaintext and is the AAD. The sector trailers cover the stored (sealed) bytes,
//     so recovery tells a torn tail from damage without the key, exactly as for a plaintext
//     record (SL8; how it goes: the end of this block).
//   - The scratch file (Scratch/ScratchFile.cs): page versions spilled from memory. Sealed under
//     an ephemeral key (StoreKey.CreateEphemeral) drawn at each open and never written anywhere:
//     the scratch file is rebuilt on every open and nobody reads it after the process ends, so
//     a scratch file a crash left behind is unreadable to everyone. Its reads are opened into a
//     cache of its own (SC5).
//   - Copies. Backups, archived journal files and archive objects, replicas and compacted copies
//     hold sealed bytes only: the first three copy the bytes as they are (a restore or a replica
//     needs the key: same key, same salt and store id in the copied header, same subkeys); a
//     compacted copy is rewritten page by page, so its pages are sealed again, with new nonces.
//   - In memory, page versions (dirty pages, the page table, the decrypted-page cache) are
//     plaintext. "At rest" means on disk.
//
// What stays plaintext, and why:
//   - The header file (Header/HeaderFile.cs): everything it holds today — magic, format version,
//     page size, revision, synced transaction, journal position, State, checksum, store id —
//     because opening, recovery and Inspect / `voron info` need them before (or without) the key;
//     and for a sealed store: the AEAD algorithm (SL6), the 32-byte salt and the 16-byte key
//     check value (SL5). State holds page numbers and the root tree's counters, no key or value.
//     Their place: header format 4, in format 3's reserved bytes (Header/HeaderFile.cs): 128
//     Algorithm (1), 129 Reserved (7), 136 Salt (32), 168 CheckValue (16). An unsealed store
//     keeps format 3 and zeros there.
//   - Page header bytes 0..23 (Paging/PageHeader.cs): PageNumber (P1 catches a misdirected write
//     without the key), Checksum (of the sealed bytes: SL4), Flags and OverflowSize (the reader
//     must know a run's length before it can open it), Lower, Upper and Holes. They are
//     authenticated (SL3), not hidden: a reader of the file learns each page's kind, how full a
//     tree page is, and a large value's length to the byte. Hiding Lower/Upper/Holes would cost a
//     copy of every page per seal (the AEAD encrypts one contiguous range, and the nonce and tag
//     sit between them and the body) for a leak of the order the file's size and the runs' page
//     counts already give.
//   - The journal record header, all 128 bytes, State included (as the header file's State).
//
// Rules:
//   SL1. Nonce rule: under one subkey, a nonce is never used twice — across crashes, reopens and
//        copies of the store. A nonce is 12 bytes: an 8-byte prefix drawn from
//        RandomNumberGenerator by each NonceSource when it is created (one per open, per
//        subkey) and again whenever its counter would wrap, then a 4-byte counter, little-endian,
//        from 0. Nothing of a NonceSource is persisted. (Argument: the NONCE RULE section below.)
//   SL2. Key derivation: the user's key is exactly 32 bytes and is never written anywhere.
//        PRK = HKDF-Extract(SHA-256, salt = the store's 32-byte salt, drawn from
//        RandomNumberGenerator when the store is created, IKM = the user's key); each subkey is
//        HKDF-Expand(PRK, info = "voron seal v1 " + purpose + algorithm id (1 byte) + store id
//        (8, little-endian), 32 bytes; the check value is 16 bytes of the same with purpose
//        "check". Purposes: "pages" (data-file pages and page-file blocks), "journal" (records,
//        so the archive and backups of the journal), "check". Separate subkeys keep each
//        NonceSource's space its own, and a check value derived by HKDF reveals nothing of the
//        other subkeys. A copy that gets a store id of its own (a backup, a restore) keeps its
//        source's salt and algorithm and gets the check value of its own id (HeaderSeal.For), so
//        the source's archived journal opens with the copy's salt and the source's store id.
//        The pages subkey is the exception: it is derived with store id 0, so it belongs to the
//        salt and is shared by the store and every copy that keeps the salt (backups, restores):
//        their data files hold the source's sealed pages byte for byte. A page cannot move to an
//        unrelated store: that store has a salt of its own, so another pages subkey.
//   SL3. What the AAD binds. A page: the page number the reader EXPECTS (not the one the header
//        claims) and page-header bytes 12..23 (Flags, Reserved, Lower, Upper, Holes,
//        OverflowSize), so a sealed page moved to another number or with a changed header field
//        fails to open (and one from an unrelated store fails under its pages subkey, SL2). A
//        page-file block: its page number, then a domain byte, so no page's AAD equals a block's.
//        A record: what the caller gives (the journal: the record header with HeaderChecksum
//        read as zero, so its transaction id, sizes, flags and state).
//   SL4. A sealed page's Checksum (P4) is the CRC32C of the page as stored — sealed body, nonce,
//        tag — with the checksum field read as zero, stamped after the seal. P1–P4 are therefore
//        checked on the stored bytes without the key (recovery, Inspect, backup checks), and a
//        torn page is told from a tampered one: P4 fails for torn or damaged bytes; P4 holds and
//        the tag fails for bytes written so by someone without the key (or with the checksum
//        recomputed). Opening gives the page its plaintext checksum back (StampChecksum), so the
//        page table and PageHeader.UpdatedChecksum see exactly the image that was sealed, and no
//        CRC of plaintext is ever stored (a CRC of known-structure plaintext confirms guesses).
//   SL5. The key check value tells a wrong key from damage. The header copy's CRC (HF2) is checked
//        first: a copy that fails it is torn or damaged and the other copy is used. A copy that
//        passes with a check value other than the one the given key derives is a wrong key:
//        the open fails saying so, before anything is read or written. A wrong key matches with
//        probability 2^-128. The comparison is constant-time (FixedTimeEquals).
//   SL6. The AEAD is AES-256-GCM where AesGcm.IsSupported (hardware AES on x64 and arm64), else
//        ChaCha20-Poly1305; both are .NET's (System.Security.Cryptography, OpenSSL on Linux), with
//        a 12-byte nonce, a 16-byte tag and a 256-bit key. The store records which at creation
//        (SealAlgorithm) and keeps it: a machine without it refuses the store naming the algorithm.
//        An Aead instance is used by one thread at a time (the pager keeps one per reading thread).
//   SL7. Every failure to open sealed bytes read from disk is a CorruptionException naming the file,
//        the offset, the page (or record) and the rule: P1 (page number), P3 (run length), P4 (the
//        sealed checksum, SL4), SL7 itself (reserved bytes 52..63 not zero) or SL3 (the tag does not
//        verify: changed after the seal, sealed for another page or store, or under another key).
//   SL8. A sealed journal record is compressed, then sealed. Its header, sectors and trailers are
//        those of a plaintext record; recovery decides torn / damaged / valid on them (R1..R7) as
//        today, and only a record whose header and trailers hold is opened; a tag that then fails
//        is corruption (the trailers prove the bytes were written so).
//   SL9. A seal is made into a buffer nobody else reads: the writer copies the page version, seals
//        the copy, writes it, drops it. Reading a page never writes its plaintext anywhere.
//   SL10. Buffers that held plaintext of a sealed store and that the store reuses or returns (the
//        journal's payload buffers) and every key buffer are cleared before they are returned or
//        released. The decrypted-page cache's buffers are the exception (OP2): readers may hold
//        them, so they are never reused, and their plaintext stays in process memory until the
//        collector reclaims it — memory the threat model leaves out.
//
// THE NONCE RULE (SL1), argued. AES-GCM and ChaCha20-Poly1305 fail badly on a repeated nonce: two
// messages under one (key, nonce) give away the XOR of their plaintexts, and for GCM the hash key,
// which forges tags for every message under that key. So the rule must hold against every way a
// store's bytes are produced twice:
//   - Crashes: a counter kept in memory restarts; one persisted in the header must be reserved
//     (written and synced) ahead of its use, or a crash hands out its last values again.
//   - Copies: a backup restored beside the original, a store copied with cp, two replicas or two
//     restores made from one backup — each copy holds the same header, salt and store id, so the
//     same subkeys, and each goes on writing. A counter persisted in the header, even reserved
//     ahead, continues from the same value in every copy: the copies reuse each other's nonces.
//     Nonces derived from (page number, transaction id) fail the same way (the original and the
//     restored copy both commit transaction N+1 to page P with different bytes), and also after
//     a crash (a torn record's transaction id is reused with other contents while the torn bytes,
//     sealed under the same nonce, may sit on disk or in an archive).
//   - So the prefix is drawn, not stored: each NonceSource draws 64 random bits when it is created
//     and when its 2^32 counter values are spent. Within one prefix the counter never repeats, so
//     two seals share a nonce only if two prefixes drawn under one subkey are equal. With q
//     prefixes drawn over the subkey's whole life — every open of every copy, plus one per 2^32
//     seals — the chance of that is at most q(q-1)/2 / 2^64 < q^2 / 2^65: for q = 2^16 (an app
//     opened ten times a day for seventeen years, in all its copies) 2^-33, under the 2^-32 NIST
//     SP 800-38D allows for random nonces; for q = 2^20, 2^-25. A random 96-bit nonce per seal
//     reaches 2^-33 after 2^32 seals in all; the prefix reaches it after 2^16 opens of up to 2^32
//     seals each. Rekeying (a new salt, so new subkeys) starts q again.
//
// Journal records: Journal/JournalSealing.cs seals and opens them (the Sealed flag, the layout and
// the AAD are in the FORMAT block of JournalRecord.cs). A sealed store journals every page that
// existed before whole (T10 in Transactions/LowLevelTransaction.cs): a diff's base would be the
// page the data file holds, which a crash may leave torn, and a torn sealed page cannot be opened. StorageEnvironment.Open derives the
// StoreKey and checks the check value (SL5) before it writes anything, then gives a JournalSealing
// to recovery and one to the writer; backup verification and restore (CopyDirectory,
// PointInTimeRestore, so ObjectArchive's restore) take the key; Inspect reads without it (records
// judged on headers and trailers, SL8); the archive shipper reads record headers only. Refused
// for now: a replica's follower has no key.

// FORMAT: sealed page and sealed byte range, version 1 (under the header file's format version 4:
// a sealed store's data file, scratch file and backups hold sealed pages; page-file blocks: PF5).
//
// Sealed page or overflow run (the page header of Paging/PageHeader.cs, with bytes 24..63 used):
//   OFFSET SIZE NAME          MEANING
//   0      24   Header        as in PageHeader.cs, plaintext; bytes 12..23 are AAD (SL3)
//   8      4    Checksum      CRC32C of the run as stored, this field read as zero (SL4)
//   24     12   Nonce         the seal's nonce (SL1)
//   36     16   Tag           the AEAD tag over the body, with the AAD of SL3
//   52     12   Reserved      zero
//   64     ...  Body          the rest of the run, encrypted (length = run length - 64)
// A sealed page read from position N is valid iff P1 (PageNumber = N), P2, P3 (its length, from
// Flags and OverflowSize, is the run's), P4 (the stored checksum), the reserved bytes 52..63
// are zero, and the tag verifies with the AAD of SL3 built with N.
//
// Sealed byte range (RecordSeal; a journal record's stored payload):
//   OFFSET SIZE NAME          MEANING
//   0      12   Nonce         the seal's nonce (SL1)
//   12     n    Ciphertext    the n bytes sealed
//   12+n   16   Tag           the AEAD tag over them, with the caller's AAD
// Valid iff it is at least 28 bytes and the tag verifies.
//
// A page-file block keeps its 8192 bytes encrypted in place, its nonce and tag (12 + 16 bytes,
// in that order) in its map entry.

/// <summary>The sizes and offsets of the seal formats; see the design notes and the FORMAT block above.</summary>
internal static class SealFormat
{
    /// <summary>The user's key and every subkey: 256 bits.</summary>
    public const int KeySize = 32;

    /// <summary>The per-store random salt of the key derivation (SL2).</summary>
    public const int SaltSize = 32;

    public const int NonceSize = 12;

    public const int TagSize = 16;

    /// <summary>The key check value kept in the header (SL5).</summary>
    public const int CheckValueSize = 16;

    /// <summary>The nonce's random prefix (SL1); the rest is the counter.</summary>
    public const int NoncePrefixSize = 8;

    // Sealed page (see the table above; same order).
    public const int PageNonceOffset = 24;
    public const int PageTagOffset = 36;
    public const int PageReservedOffset = 52;
    public const int PageReservedSize = 12;

    /// <summary>Page-header bytes 12..23, authenticated with the page (SL3).</summary>
    public const int PageAadFieldsOffset = 12;
    public const int PageAadFieldsSize = 12;

    // Sealed byte range (see the table above).
    public const int RecordNonceOffset = 0;
    public const int RecordCiphertextOffset = NonceSize;

    /// <summary>The bytes a sealed range adds to what it seals: the nonce and the tag.</summary>
    public const int RecordOverhead = NonceSize + TagSize;

    /// <summary>The nonce and tag a page-file block keeps in its map entry.</summary>
    public const int BlockSealSize = NonceSize + TagSize;

    /// <summary>The AEAD a new sealed store gets on this machine (SL6).</summary>
    public static SealAlgorithm Preferred => AesGcm.IsSupported ? SealAlgorithm.AesGcm : SealAlgorithm.ChaCha20Poly1305;

    /// <summary>Whether this machine can seal and open with <paramref name="algorithm"/>.</summary>
    public static bool IsSupported(SealAlgorithm algorithm) => algorithm switch
    {
        SealAlgorithm.AesGcm => AesGcm.IsSupported,
        SealAlgorithm.ChaCha20Poly1305 => ChaCha20Poly1305.IsSupported,
        _ => false,
    };
}
