namespace Voron.Tests.Core.Journal;

/// <summary>What a test appended: the model recovery must reproduce.</summary>
internal sealed record WrittenRecord(long TransactionId, byte[] State, IReadOnlyList<JournalPage> Pages, JournalRecordLocation Location);
