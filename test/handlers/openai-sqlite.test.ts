// The OpenAI-compatible surface (test/handlers/openai-contract.ts) on the embedded SQLite.
import { openAIContract } from './openai-contract.ts';

openAIContract('sqlite');
