/**
 * Meal analyze, meal photo upload and media read on the graph: analyzeMeal (REST POST
 * /api/meals/analyze, multipart), analyzeMealFromData (MCP nutrition_meal_analyze, base64 photos),
 * attachMealPhoto (MCP nutrition_meal_photo_upload) and mealPhotoFile (MCP media_file_read).
 * Resolvers unpack and call ai.analyze.ts; the configured limits (photo count and size,
 * description length) are checked there, in the documented order, because they come from config.
 */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import { enumValues } from '../../graphql/enum-values.ts';
import type { Nutrients } from '../meals/index.ts';
import type {
  AnalyzedItemView,
  MealAnalysisView,
  MealPhotoView,
  MediaFileChunkView,
} from './ai.analyze.ts';
import {
  analyzeMeal,
  attachMealPhoto,
  ITEM_SOURCES,
  MEDIA_CHUNK_BYTES,
  photosFromBase64,
  photosFromFiles,
  mealPhotoFile,
} from './ai.analyze.ts';

/** The multipart field names a photo is accepted under (legacy clients), in the order they are read. */
export const PHOTO_FIELDS = ['photos', 'photo', 'images', 'image', 'files', 'file'] as const;
/** Hard bounds beside the configured ones (MEALS_ANALYZE_MAX_IMAGES is at most 20). */
const PHOTOS_HARD_MAX = 20;
const DESCRIPTION_HARD_MAX = 100_000;
/** Base64 characters of a photo argument: 20 MB of bytes (413 below it comes from the byte limits). */
const BASE64_PHOTO_MAX_CHARS = 28_000_000;

const ItemSource = builder.enumType('MealItemSource', {
  description:
    "Where an analysed item's nutrients come from: the food catalogue (FoodData Central and the other catalogue sources) for the grams, or the model's own estimate",
  values: enumValues(ITEM_SOURCES),
});

const nutrientFields = {
  kcal: 'energy, kcal',
  proteinG: 'protein, g',
  carbsG: 'carbohydrate, g',
  fatG: 'fat, g',
  fiberG: 'fibre, g',
  sugarG: 'sugars, g',
} as const;

const AnalyzedItem = builder.objectRef<AnalyzedItemView>('AnalyzedMealItem').implement({
  description: 'A food the model recognised, matched to the catalogue where it could be',
  fields: (t) => ({
    name: t.exposeString('name', { description: "the food's name as the model gave it" }),
    foodId: t.exposeString('foodId', {
      nullable: true,
      description: 'the matched catalogue food (fdc_id), or null when none matched',
    }),
    barcode: t.exposeString('barcode', {
      nullable: true,
      description: 'a barcode the model read on a package, or null',
    }),
    grams: t.exposeFloat('grams', { description: 'estimated grams eaten' }),
    gramsLow: t.exposeFloat('gramsLow', { description: 'low end of the estimate, g' }),
    gramsHigh: t.exposeFloat('gramsHigh', { description: 'high end of the estimate, g' }),
    confidence: t.exposeFloat('confidence', { description: 'how sure the model is, 0..1' }),
    source: t.expose('source', { type: ItemSource }),
    ...Object.fromEntries(
      Object.entries(nutrientFields).map(([k, d]) => [
        k,
        t.exposeFloat(k as keyof Nutrients, { description: `${d}, for the grams` }),
      ]),
    ),
  }),
});

const AnalysisTotals = builder.objectRef<Nutrients>('MealAnalysisTotals').implement({
  description: "The analysed meal's totals (the sum of its items)",
  fields: (t) =>
    Object.fromEntries(
      Object.entries(nutrientFields).map(([k, d]) => [
        k,
        t.exposeFloat(k as keyof Nutrients, { description: d }),
      ]),
    ),
});

const MealAnalysis = builder.objectRef<MealAnalysisView>('MealAnalysis').implement({
  description: 'What the model recognised in a meal, with catalogue nutrients (MealAnalyzeOut)',
  fields: (t) => ({
    mealName: t.exposeString('mealName', { description: 'a suggested name for the meal' }),
    items: t.expose('items', { type: [AnalyzedItem], description: 'the foods recognised' }),
    totals: t.expose('totals', { type: AnalysisTotals }),
  }),
});

const MealPhoto = builder.objectRef<MealPhotoView>('MealPhotoFile').implement({
  description: "A meal's stored photo",
  fields: (t) => ({
    mealId: t.exposeString('mealId'),
    key: t.exposeString('key', { description: 'the media key (read it with media_file_read)' }),
    url: t.exposeString('url', { description: 'where the photo is served' }),
    mimeType: t.exposeString('mimeType'),
    bytes: t.exposeInt('bytes', { description: "the file's size" }),
  }),
});

const MediaChunk = builder.objectRef<MediaFileChunkView>('MediaFileChunk').implement({
  description: `A part of a stored file: at most ${MEDIA_CHUNK_BYTES} bytes, base64`,
  fields: (t) => ({
    key: t.exposeString('key', { description: 'the media key' }),
    url: t.exposeString('url', { description: 'where the file is served' }),
    mimeType: t.exposeString('mimeType'),
    bytes: t.exposeInt('bytes', { description: "the whole file's size" }),
    offset: t.exposeInt('offset', { description: 'the first byte of this part' }),
    data: t.exposeString('data', { description: 'the bytes of this part, base64' }),
    nextOffset: t.exposeInt('nextOffset', {
      nullable: true,
      description: 'call again with this offset for the next part; null at the end',
    }),
  }),
});

const limitsNote =
  'at most meals_analyze_max_images photos (422), each at most meals_analyze_max_image_bytes (413), a description of at most meals_analyze_max_description_chars characters (422)';

const MealAnalyzeInput = builder.inputType('MealAnalyzeInput', {
  description: 'A meal to analyze: photos (base64) and/or a description',
  fields: (t) => ({
    photos: t.stringList({
      description: `the meal's photos, each base64 or a data: URL (JPEG, PNG, WebP or HEIC); at most meals_analyze_max_images`,
    }),
    description: t.string({ description: 'what the meal is, in words' }),
  }),
  validate: z.object({
    photos: z.array(z.string().max(BASE64_PHOTO_MAX_CHARS)).max(PHOTOS_HARD_MAX).nullish(),
    description: z.string().max(DESCRIPTION_HARD_MAX).nullish(),
  }),
});

const AttachMealPhotoInput = builder.inputType('AttachMealPhotoInput', {
  description: 'A photo for one of the caller’s meals',
  fields: (t) => ({
    mealId: t.string({ required: true, description: "the meal's id (a uuid, from a meal list)" }),
    photo: t.string({
      required: true,
      description:
        'the photo, base64 or a base64 data: URL (JPEG, PNG, WebP or HEIC, at most 8 MB)',
    }),
  }),
  validate: z.object({
    mealId: z.uuid({ message: 'Input should be a valid UUID' }),
    photo: z.string().min(1).max(BASE64_PHOTO_MAX_CHARS),
  }),
});

const fileList = z.array(z.any()).max(PHOTOS_HARD_MAX).nullish();
const aliasNote = 'the same as photos (an accepted field name)';

const aiNote =
  ' Then 503 while meal AI is off, 403 needs_consent, 429 rate_limited or ai_budget_exhausted, 502/504 on model failure.';

builder.mutationFields((t) => {
  const files = (description: string) => t.arg({ type: ['File'], description, validate: fileList });
  return {
    analyzeMeal: t.withAuth({ scope: 'health:nutrition:write' }).field({
      type: MealAnalysis,
      description: `Recognises a meal from uploaded photos and/or a description: ${limitsNote}.${aiNote}`,
      args: {
        photos: files('the meal photos (repeat the field for several)'),
        photo: files(aliasNote),
        images: files(aliasNote),
        image: files(aliasNote),
        files: files(aliasNote),
        file: files(aliasNote),
        description: t.arg.string({
          description: 'what the meal is, in words',
          validate: z.string().max(DESCRIPTION_HARD_MAX).nullish(),
        }),
      },
      resolve: async (_root, args, ctx) =>
        analyzeMeal(ctx, {
          photos: await photosFromFiles(PHOTO_FIELDS.map((f) => ({ argument: f, files: args[f] }))),
          description: args.description,
          photosLoc: 'photos',
        }),
    }),
    analyzeMealFromData: t.withAuth({ scope: 'health:nutrition:write' }).field({
      type: MealAnalysis,
      description: `Recognises a meal from base64 photos and/or a description: ${limitsNote}.${aiNote}`,
      args: { input: t.arg({ type: MealAnalyzeInput, required: true }) },
      resolve: (_root, { input }, ctx) =>
        analyzeMeal(ctx, {
          photos: photosFromBase64(input.photos ?? [], 'photos'),
          description: input.description,
          photosLoc: 'photos',
        }),
    }),
    attachMealPhoto: t.withAuth({ scope: 'health:nutrition:write' }).field({
      type: MealPhoto,
      description: "Replaces the photo of one of the caller's meals with a base64 photo",
      args: { input: t.arg({ type: AttachMealPhotoInput, required: true }) },
      resolve: (_root, { input }, ctx) => attachMealPhoto(ctx, input),
    }),
  };
});

builder.queryFields((t) => ({
  mealPhotoFile: t.withAuth({ scope: 'health:nutrition:read' }).field({
    type: MediaChunk,
    description: `One of the person's meal photos, by media key or URL, in base64 parts of ${MEDIA_CHUNK_BYTES} bytes`,
    args: {
      file: t.arg.string({
        required: true,
        description: 'the media key (meals/<id>.jpg) or its URL (…/media/meals/<id>.jpg)',
        validate: z.string().min(1).max(500),
      }),
      offset: t.arg.int({
        description: 'the first byte to answer: a previous answer’s next_offset',
        validate: z.number().int().min(0).nullish(),
      }),
    },
    resolve: (_root, args, ctx) => mealPhotoFile(ctx, args),
  }),
}));
