namespace Voron.Transactions;

/// <summary>
/// Why a merged operation may not be asynchronous (M6), in one place: the message every refusal
/// uses, and the checks for a delegate that returns something awaitable.
/// </summary>
internal static class AsyncOperationRefusal
{
    public const string Message =
        "A merged write operation must be synchronous: the merger commits its batch as soon as the delegate returns, " +
        "so code after an await would run outside the transaction (and used to write into pages already committed). " +
        "Do the asynchronous work before calling ExecuteAsync, or use BeginWriteAsync for a transaction that crosses awaits.";

    /// <summary>Whether a delegate returning <typeparamref name="T"/> returns something awaitable (a task or value task).</summary>
    public static bool IsAwaitable<T>() => Awaitable<T>.Value;

    public static ArgumentException Refuse(string parameterName) => new(Message, parameterName);

    private static class Awaitable<T>
    {
        public static readonly bool Value = typeof(IAsyncResult).IsAssignableFrom(typeof(T)) || typeof(T) == typeof(ValueTask) ||
            (typeof(T).IsGenericType && typeof(T).GetGenericTypeDefinition() == typeof(ValueTask<>));
    }
}
