using System;

namespace Missive;

/// <summary>
/// The CloudEvents context attributes and the JSON format's two data members, as flags so that a
/// reader can note which it has seen and spot a duplicate with one test.
/// </summary>
[Flags]
internal enum CloudEventAttribute
{
    None = 0,
    Id = 1 << 0,
    Source = 1 << 1,
    SpecVersion = 1 << 2,
    Type = 1 << 3,
    Time = 1 << 4,
    DataContentType = 1 << 5,
    DataSchema = 1 << 6,
    Subject = 1 << 7,
    Data = 1 << 8,
    DataBase64 = 1 << 9,

    /// <summary>Any other name: an extension attribute.</summary>
    Extension = 1 << 10,
}
