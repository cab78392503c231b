namespace Voron.LoadTests.Experiments.Documents;

public sealed class ProfileSetting
{
    public string Key { get; set; } = "";

    public string Value { get; set; } = "";
}
