using System.Text.Json.Serialization;

namespace Voron.LoadTests.Experiments.Documents;

/// <summary>
/// The documents experiment's document: a customer profile of about 1 KiB of JSON with nested
/// objects and arrays (<see cref="ProfileDataSet"/> fills it with varied values). The same objects
/// go to every engine; each stores them the way its users do (System.Text.Json for Voron and
/// SQLite, LiteDB's own mapper).
/// </summary>
public sealed class Profile
{
    public string? Id { get; set; }

    public string Name { get; set; } = "";

    public string Email { get; set; } = "";

    public int Age { get; set; }

    public string City { get; set; } = "";

    public bool Active { get; set; }

    public double Score { get; set; }

    public long CreatedUnix { get; set; }

    public List<string> Tags { get; set; } = [];

    public ProfileAddress Address { get; set; } = new();

    public List<ProfileOrder> RecentOrders { get; set; } = [];

    public List<ProfileSetting> Settings { get; set; } = [];

    public string Bio { get; set; } = "";

    /// <summary>LiteDB's optimistic-concurrency check (Voron keeps versions in metadata, SQLite in a column).</summary>
    [JsonIgnore]
    public int Version { get; set; }
}
