// file_connector's transform_image through recipe runs: conversion, fit and strict resize read back
// pixel by pixel, and bad input (not an image, an unknown format, too many pixels) as the step's error.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createJimp } from '@jimp/core';
import jpeg from '@jimp/js-jpeg';
import png from '@jimp/js-png';
import { createTestApp, type TestApp } from '../../../../test/helpers.ts';
import { action, fire, pill, webhookRecipe } from '../../../../test/recipes.ts';

const Jimp = createJimp({ formats: [png, jpeg] });
let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const RED = 0xff0000ff;
/** A width x height PNG, red, as base64. */
async function redPng(width: number, height: number): Promise<string> {
  const image = new Jimp({ width, height, color: RED });
  return (await image.getBuffer('image/png')).toString('base64');
}

async function decode(base64: string) {
  const image = await Jimp.fromBuffer(Buffer.from(base64, 'base64'));
  const rgba = (x: number, y: number) => image.getPixelColor(x, y) >>> 0;
  return { width: image.bitmap.width, height: image.bitmap.height, mime: image.mime, rgba };
}

const image = pill('workato_webhooks', 'hook', 'payload', 'image');

async function transform(input: Record<string, unknown>, body: Record<string, unknown>) {
  const { path } = await webhookRecipe(t, [action('file_connector', 'transform_image', 'img', input)]);
  return fire(t, path, body);
}

describe('file_connector transform_image', () => {
  test('converts PNG to JPEG at its size; fits a box keeping the aspect ratio; strict resize pads with white', async () => {
    const source = await redPng(40, 20);

    const converted = await transform({ input_image: image, convert_to: 'jpg' }, { image: source });
    assert.equal(converted.status, 'succeeded', converted.error ?? '');
    const out = converted.output(1) as Record<string, unknown>;
    assert.equal(out.mime_type, 'image/jpeg');
    assert.equal(out.content_encoding, 'base64');
    assert.equal(out.file_name, 'image.jpg');
    const jpg = await decode(out.transformed_image as string);
    assert.deepEqual([jpg.mime, jpg.width, jpg.height], ['image/jpeg', 40, 20]);
    assert.equal(out.size, Buffer.from(out.transformed_image as string, 'base64').length);

    const fitted = await transform(
      { input_image: image, convert_to: 'png', resize: { width: '10', height: '10' } },
      { image: source },
    );
    assert.equal(fitted.status, 'succeeded', fitted.error ?? '');
    const fit = await decode((fitted.output(1) as Record<string, string>).transformed_image as string);
    assert.deepEqual([fit.mime, fit.width, fit.height], ['image/png', 10, 5]);
    assert.equal(fit.rgba(5, 2), RED >>> 0);

    const strict = await transform(
      { input_image: image, resize: { width: 10, height: 10, strict_resize: 'true' } },
      { image: source },
    );
    assert.equal(strict.status, 'succeeded', strict.error ?? '');
    const exact = await decode((strict.output(1) as Record<string, string>).transformed_image as string);
    assert.deepEqual([exact.width, exact.height], [10, 10]);
    assert.equal(exact.rgba(5, 0), 0xffffffff, 'white padding above');
    assert.equal(exact.rgba(5, 9), 0xffffffff, 'white padding below');
    assert.equal(exact.rgba(5, 5), RED >>> 0, 'the image in the middle');

    const byWidth = await transform({ input_image: image, width: 20 }, { image: source });
    const half = await decode((byWidth.output(1) as Record<string, string>).transformed_image as string);
    assert.deepEqual([half.width, half.height], [20, 10]);
  });

  test('bad input: not an image, an unknown format, dimensions past the bounds, not base64', async () => {
    const source = await redPng(4, 4);
    const cases: Array<[Record<string, unknown>, Record<string, unknown>, string]> = [
      [
        { input_image: image },
        { image: Buffer.from('just text').toString('base64') },
        'Bad request: input_image is not an image (PNG, JPEG, GIF or BMP)',
      ],
      [
        { input_image: image, convert_to: 'tiff' },
        { image: source },
        'Bad request: convert_to must be png or jpg, not "tiff"',
      ],
      [
        { input_image: image, resize: { width: 20_000 } },
        { image: source },
        'Bad request: width must be at most 10000 pixels',
      ],
      [
        { input_image: image, resize: { width: -3 } },
        { image: source },
        'Bad request: width must be a whole number of pixels, 1 or more',
      ],
      [
        { input_image: image, resize: { width: 9000, height: 9000 } },
        { image: source },
        'Image too large: the result would be 9000x9000 pixels; at most 25000000 pixels and 10000 a side',
      ],
      [{ input_image: image }, { image: '%%%' }, 'Bad request: input_image is not base64'],
      [{ input_image: image }, {}, 'Bad request: input_image is required'],
    ];
    for (const [input, body, error] of cases) {
      const job = await transform(input, body);
      assert.equal(job.status, 'failed');
      assert.equal(job.error, error);
    }
  });

  test('a PNG whose header claims 60000x60000 pixels is refused before it is decoded', async () => {
    const real = Buffer.from(await redPng(2, 2), 'base64');
    // IHDR's width and height sit at bytes 16-23; the chunk's CRC no longer matches, which no decoder reaches.
    real.writeUInt32BE(60_000, 16);
    real.writeUInt32BE(60_000, 20);
    const job = await transform({ input_image: image }, { image: real.toString('base64') });
    assert.equal(job.status, 'failed');
    assert.equal(job.error, 'Image too large: the image is 60000x60000 pixels; at most 25000000 pixels are read');
  });
});
