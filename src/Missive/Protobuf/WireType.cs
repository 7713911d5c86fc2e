namespace Missive.Protobuf;

/// <summary>Protobuf wire types: the low three bits of a tag.</summary>
internal enum WireType
{
    Varint = 0,
    Fixed64 = 1,
    LengthDelimited = 2,
    StartGroup = 3,
    EndGroup = 4,
    Fixed32 = 5,
}
