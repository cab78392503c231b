using Microsoft.Extensions.Options;

namespace Voron.Documents.AspNetCore.Hosting;

/// <summary>
/// Start-up validation (<c>ValidateOnStart</c>): the settings <see cref="DocumentStoreOptions.Validate"/>
/// refuses, and a <see cref="DocumentStoreOptions.Path"/> that cannot be a store directory (a file, or
/// under one). Each failure names the store and the setting. Whether the directory can be written
/// is found out by opening the store, which fails the start with the operating system's reason.
/// </summary>
internal sealed class DocumentStoreOptionsValidator : IValidateOptions<DocumentStoreOptions>, IValidateOptions<DocumentStoreHostingOptions>
{
    public ValidateOptionsResult Validate(string? name, DocumentStoreOptions options)
    {
        var failures = new List<string>();
        try
        {
            options.Validate();
        }
        catch (ArgumentException e)
        {
            failures.Add(e.ParamName == null ? e.Message : e.Message.Replace($" (Parameter '{e.ParamName}')", "", StringComparison.Ordinal));
        }

        if (!options.InMemory && !string.IsNullOrWhiteSpace(options.Path))
        {
            CheckDirectory(options.Path, failures);
        }

        return Result(name, failures);
    }

    public ValidateOptionsResult Validate(string? name, DocumentStoreHostingOptions options)
    {
        var failures = new List<string>();
        options.Validate(failures);
        return Result(name, failures);
    }

    private static ValidateOptionsResult Result(string? name, List<string> failures) => failures.Count == 0
        ? ValidateOptionsResult.Success
        : ValidateOptionsResult.Fail(failures.Select(f => $"Voron document store{DocumentStoreRegistration.Describe(name ?? "")}: {f}"));

    private static void CheckDirectory(string path, List<string> failures)
    {
        string full;
        try
        {
            full = Path.GetFullPath(path);
        }
        catch (Exception e) when (e is ArgumentException or NotSupportedException or PathTooLongException)
        {
            failures.Add($"DocumentStoreOptions.Path '{path}' is not a valid path: {e.Message}");
            return;
        }

        if (File.Exists(full))
        {
            failures.Add($"DocumentStoreOptions.Path '{full}' is a file; it must be a directory (created if missing).");
            return;
        }

        // The nearest existing ancestor must be a directory, or the store's directory cannot be created.
        for (var parent = Path.GetDirectoryName(full); parent != null; parent = Path.GetDirectoryName(parent))
        {
            if (Directory.Exists(parent))
            {
                return;
            }

            if (File.Exists(parent))
            {
                failures.Add($"DocumentStoreOptions.Path '{full}' cannot be created: '{parent}' is a file.");
                return;
            }
        }
    }
}
