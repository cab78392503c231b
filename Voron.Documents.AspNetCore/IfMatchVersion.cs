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
/// list, a tag it never issued) fails the binding: 400 Bad Request.
/// </summary>
public readonly struct IfMatchVersion
{
    private IfMatchVersion(long? expectedVersion) => ExpectedVersion = expectedVersion;

    /// <summary>The version the request expects (0: none may exist), or null when it sent no precondition.</summary>
    public long? ExpectedVersion { get; }

    /// <summary>Minimal APIs bind the parameter with this (by convention): null, a 400 answer, when the preconditions cannot be honoured.</summary>
    public static ValueTask<IfMatchVersion?> BindAsync(HttpContext context, ParameterInfo parameter)
    {
        ArgumentNullException.ThrowIfNull(context);
        return ValueTask.FromResult(From(context.Request));
    }

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
