using System;
using System.Collections.Generic;
using System.IO;
using System.Text;
using System.Xml;
using Missive.Aws.Protocol;

namespace Missive.Tests.Aws.Unit;

/// <summary>The hand-written walk over Query-protocol answers, against the BCL's <see cref="XmlReader"/> over the same documents.</summary>
public sealed class AwsXmlTests
{
    private static readonly HashSet<string> Leaves = ["MessageId", "Id", "Code", "Message", "SenderFault", "RequestId", "Type"];

    private static readonly string[] Documents =
    [
        "<PublishResponse xmlns=\"http://sns.amazonaws.com/doc/2010-03-31/\"><PublishResult><MessageId>567910cd-659e-55d4-8ccb-5aaf14679dc0</MessageId></PublishResult><ResponseMetadata><RequestId>d74b8436-ae13-5ab4-a9ff-ce54dfea72a0</RequestId></ResponseMetadata></PublishResponse>",
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<PublishBatchResponse>\n  <PublishBatchResult>\n    <Successful>\n      <member><Id>0</Id><MessageId>m-1</MessageId></member>\n    </Successful>\n    <Failed>\n      <member><Id>1</Id><Code>InternalError</Code><Message>a &lt;b&gt; &amp; &quot;c&quot; &apos;d&apos; &#233;&#x1F389;</Message><SenderFault>false</SenderFault></member>\n    </Failed>\n  </PublishBatchResult>\n</PublishBatchResponse>\n",
        "<ErrorResponse><Error><Type>Sender</Type><Code>InvalidParameter</Code><Message><![CDATA[x < y & z]]> and <!-- a comment --> text</Message></Error><RequestId>r-1</RequestId></ErrorResponse>",
        "<a:Root xmlns:a=\"urn:x\" attr='1 > 0' other=\"q'>\"><a:MessageId>é日本</a:MessageId><Empty/><Id></Id><Code attr=\"x\"/></a:Root>",
        "\uFEFF<Root><?pi inside?><Message>multi\r\nline\ttext</Message></Root>",
    ];

    public static TheoryData<string> WellFormed => new(Documents);

    [Theory]
    [MemberData(nameof(WellFormed))]
    public void ALeafsText_IsWhatXmlReaderReads(string document)
    {
        byte[] utf8 = Encoding.UTF8.GetBytes(document);

        Assert.Equal(WithXmlReader(utf8), WithWalk(utf8));
    }

    [Theory]
    [InlineData("")]
    [InlineData("{\"MessageId\":\"x\"}")]
    [InlineData("<Root><MessageId>x</MessageId>")] // not closed
    [InlineData("<Root><MessageId>x</Id></Root>")] // end tag of another name
    [InlineData("<Root></Root><Second/>")]
    [InlineData("<Root/>trailing")]
    [InlineData("<!DOCTYPE Root [<!ENTITY e \"x\">]><Root>&e;</Root>")]
    [InlineData("<Root><MessageId>&unknown;</MessageId></Root>")]
    [InlineData("<Root><MessageId>&#0;</MessageId></Root>")]
    [InlineData("<Root><MessageId>a & b</MessageId></Root>")]
    [InlineData("<Root><MessageId><Inner/></MessageId></Root>")] // text expected
    [InlineData("<Root><MessageId attr=\"never closed></MessageId></Root>")]
    [InlineData("<><MessageId/></>")]
    public void ADocumentThatIsNotWellFormed_IsAnXmlException(string document)
    {
        byte[] utf8 = Encoding.UTF8.GetBytes(document);

        Assert.Throws<XmlException>(() => WithWalk(utf8));
    }

    [Fact]
    public void InvalidUtf8_IsAnXmlException()
    {
        byte[] utf8 = [.. "<Root><MessageId>"u8, 0xC3, 0x28, .. "</MessageId></Root>"u8];

        Assert.Throws<XmlException>(() => WithWalk(utf8));
    }

    [Fact]
    public void MutatedAnswers_ThatXmlReaderReads_AreReadTheSame_AndNoneThrowsAnythingButAnXmlException()
    {
        // Seeded mutations of real answer shapes: every document XmlReader reads must read the same here; any other
        // document may be refused, but only with an XmlException (the client's "not XML" answer error).
        var random = new Random(20261126);
        string[] seeds = Documents;
        byte[] alphabet = "<>/&;#x![]?-=\"' \r\nabcMessageIdCDATA0123"u8.ToArray();
        int agreed = 0;
        for (int n = 0; n < 20_000; n++)
        {
            var bytes = new List<byte>(Encoding.UTF8.GetBytes(seeds[random.Next(seeds.Length)]));
            for (int edits = random.Next(1, 4); edits > 0 && bytes.Count > 0; edits--)
            {
                int at = random.Next(bytes.Count);
                switch (random.Next(3))
                {
                    case 0: bytes.RemoveAt(at); break;
                    case 1: bytes.Insert(at, alphabet[random.Next(alphabet.Length)]); break;
                    default: bytes[at] = alphabet[random.Next(alphabet.Length)]; break;
                }
            }

            byte[] document = [.. bytes];
            List<string>? expected;
            try
            {
                expected = WithXmlReader(document);
            }
            catch (XmlException)
            {
                expected = null;
            }

            try
            {
                List<string> actual = WithWalk(document);
                if (expected is not null)
                {
                    Assert.Equal(expected, actual);
                    agreed++;
                }
            }
            catch (XmlException) when (expected is null)
            {
            }
        }

        Assert.True(agreed > 1_000, $"only {agreed} mutated documents were well-formed");
    }

    private static List<string> WithWalk(byte[] utf8)
    {
        var found = new List<string>();
        AwsXml.Walk(utf8, ref found, static (ref XmlScan scan, ref List<string> found) =>
        {
            string name = Encoding.UTF8.GetString(scan.LocalName);
            if (!Leaves.Contains(name))
            {
                return false;
            }

            found.Add(name + "=" + scan.ReadText());
            return true;
        });
        return found;
    }

    private static List<string> WithXmlReader(byte[] utf8)
    {
        var found = new List<string>();
        using var reader = XmlReader.Create(new MemoryStream(utf8), new XmlReaderSettings { DtdProcessing = DtdProcessing.Prohibit, XmlResolver = null });
        reader.MoveToContent();
        while (!reader.EOF)
        {
            if (reader.NodeType == XmlNodeType.Element && Leaves.Contains(reader.LocalName))
            {
                string name = reader.LocalName;
                found.Add(name + "=" + reader.ReadElementContentAsString());
                continue;
            }

            reader.Read();
        }

        return found;
    }
}
