using Voron.PageFiles;

namespace Voron;

/// <summary>Opens, creates, lists and deletes <see cref="PageFile"/>s in a transaction.</summary>
public static class PageFileExtensions
{
    /// <summary>The page file named <paramref name="name"/>, or null when there is none.</summary>
    /// <exception cref="ArgumentException">The name is empty, longer than <see cref="PageFile.MaxNameBytes"/> (246) UTF-8 bytes, or has control characters.</exception>
    public static PageFile? OpenPageFile(this ReadTransaction transaction, string name)
    {
        ArgumentNullException.ThrowIfNull(transaction);
        transaction.ThrowIfUnusable();
        var view = PageFileView.Open(transaction.Low, name);
        return view == null ? null : new PageFile(transaction, view);
    }

    /// <summary>The page file named <paramref name="name"/>, created empty when missing.</summary>
    public static PageFile CreatePageFile(this WriteTransaction transaction, string name)
    {
        ArgumentNullException.ThrowIfNull(transaction);
        transaction.ThrowIfUnusable();
        return new PageFile(transaction, PageFileView.OpenOrCreate(transaction.Low, name));
    }

    /// <summary>Deletes a page file and frees its pages; false when there was none.</summary>
    public static bool DeletePageFile(this WriteTransaction transaction, string name)
    {
        ArgumentNullException.ThrowIfNull(transaction);
        transaction.ThrowIfUnusable();
        return PageFileView.Delete(transaction.Low, name);
    }

    /// <summary>The names of every page file, in byte order of their UTF-8 names.</summary>
    public static IReadOnlyList<string> GetPageFileNames(this ReadTransaction transaction)
    {
        ArgumentNullException.ThrowIfNull(transaction);
        transaction.ThrowIfUnusable();
        return PageFileView.Names(transaction.Low);
    }
}
