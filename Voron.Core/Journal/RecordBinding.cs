namespace Voron.Journal;

/// <summary>
/// What every checksum of a record is bound to (the FORMAT block in JournalRecord.cs): the
/// store's random id, from the header file, and the number of the journal file holding the record.
/// </summary>
internal readonly record struct RecordBinding(ulong StoreId, long FileNumber);
