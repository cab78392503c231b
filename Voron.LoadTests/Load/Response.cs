namespace Voron.LoadTests.Load;

/// <summary>
/// What one step or one scenario invocation came to, in NBomber's vocabulary: ok or failed, a
/// status code (free text: "200", "conflict", "timeout"), the bytes it moved and a message. A
/// failure is counted under its status code and reported, never thrown (<see cref="LoadRunner"/>).
/// </summary>
internal readonly record struct Response(bool IsError, string StatusCode, long SizeBytes, string? Message)
{
    /// <summary>The status code of a step or scenario that threw: the exception's message is the response's.</summary>
    public const string ExceptionStatus = "exception";

    public static Response Ok(string statusCode = "", long sizeBytes = 0, string? message = null) => new(false, statusCode, sizeBytes, message);

    public static Response Fail(string statusCode = "", string? message = null, long sizeBytes = 0) => new(true, statusCode, sizeBytes, message);
}
