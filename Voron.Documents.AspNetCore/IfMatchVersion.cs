using System.Reflection;
using Microsoft.AspNetCore.Http;
using Microsoft.Net.Http.Headers;

namespace Voron.Documents.AspNetCore;

/// <summary>
/// The expected version a write request states through its preconditions, as an endpoint
/// parameter: <c>If-Match: "17"</c> gives 17 (the save succeeds only if version 17 is still the
/// stored one); <c>If-None-Match: *</c> gives 0 (only if no document exists); neither gives null
/// (no condition). Pass <see cref="ExpectedVersion"/> to <c>Store</c> or <c>Delete</c>; a
/// mismatch throws <see cref="ConcurrencyException"/>, which <c>AddVoronProblemDetails</c> answers
/// with 412 Precondition Failed. A header this API cannot honour (a weak tag, <c>If-Match: *</c>, a
/// list, a tag it never issued) fails the binding with <see cref="BadHttpRequestException"/>: 400
/// Bad Request saying what the header must be.
/// </summary>
public readonly struct IfMatchVersion
{
    private IfMatchVersion(long? expectedVersion) => ExpectedVersion = expectedVersion;

    /// <summary>The version the request expects (0: none may exist), or null when it sent no precondition.</summary>
    public long? ExpectedVersion { get; }

    /// <summary>
    /// Minimal APIs bind the parameter with this (by convention). Preconditions it cannot honour throw
    /// <see cref="BadHttpRequestException"/> (400) naming the header and what it must be, which
    /// <c>AddVoronProblemDetails</c> answers with problem details.
    /// </summary>
    public static ValueTask<IfMatchVersion?> BindAsync(HttpContext context, ParameterInfo parameter)
    {
        ArgumentNullException.ThrowIfNull(context);
        return From(context.Request) is { } version
            ? ValueTask.FromResult<IfMatchVersion?>(version)
            : throw new BadHttpRequestException(Refusal(context.Request), StatusCodes.Status400BadRequest);
    }

    /// <summary>Why the preconditions of <paramref name="request"/> cannot be honoured (for a 400's detail).</summary>
    internal static string Refusal(HttpRequest request)
    {
        var ifMatch = request.Headers[HeaderNames.IfMatch];
        var ifNoneMatch = request.Headers[HeaderNames.IfNoneMatch];
        if (ifMatch.Count > 0 && ifNoneMatch.Count > 0)
        {
            return "The request sent both If-Match and If-None-Match; send one: If-Match: \"<version>\" (that version must still be stored) or If-None-Match: * (no document may exist).";
        }

        return ifMatch.Count > 0
            ? $"The If-Match header '{Shorten(ifMatch.ToString())}' cannot be honoured: it must be one strong entity tag this API issued, a positive version in quotes (If-Match: \"17\", the ETag of a read); weak tags (W/), *, lists and other values are refused."
            : $"The If-None-Match header '{Shorten(ifNoneMatch.ToString())}' cannot be honoured on a write: only If-None-Match: * (no document may exist) is.";
    }

    private static string Shorten(string value) => value.Length <= 100 ? value : value[..100] + "...";

    /// <summary>The preconditions of <paramref name="request"/>; null when they cannot be honoured.</summary>
    public static IfMatchVersion? From(HttpRequest request)
    {
        ArgumentNullException.ThrowIfNull(request);
        var ifMatch = request.Headers[HeaderNames.IfMatch];
        var ifNoneMatch = request.Headers[HeaderNames.IfNoneMatch];
        if (ifMatch.Count > 0 && ifNoneMatch.Count > 0)
        {
            return null;
        }

        if (ifMatch.Count > 0)
        {
            return ifMatch.Count == 1 && DocumentETag.TryParse(ifMatch[0], out var version) ? new IfMatchVersion(version) : null;
        }

        if (ifNoneMatch.Count > 0)
        {
            return ifNoneMatch.Count == 1 && ifNoneMatch[0]?.Trim() == "*" ? new IfMatchVersion(0) : null;
        }

        return new IfMatchVersion(null);
    }
}
