namespace Voron.Tests.Core.Journal;

/// <summary>A recovered record copied out of the reader's buffers during the apply callback.</summary>
internal sealed record RecoveredCopy(
    long TransactionId, byte[] State, IReadOnlyList<(long PageNumber, int PageCount, byte[] Bytes)> Pages, JournalPosition Start, JournalPosition End)
{
    public static RecoveredCopy Of(RecoveredRecord record)
    {
        Assert.All(record.Pages, page => Assert.Equal(JournalPageEncoding.FullImage, page.Encoding));
        return new RecoveredCopy(
            record.TransactionId,
            record.State.ToArray(),
            record.Pages.Select(p => (p.PageNumber, p.PageCount, p.Bytes.ToArray())).ToList(),
            record.Start,
            record.End);
    }
}
