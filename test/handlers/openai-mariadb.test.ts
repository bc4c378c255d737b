// The OpenAI-compatible surface (test/handlers/openai-contract.ts) on MariaDB.
import { openAIContract } from './openai-contract.ts';

openAIContract('mysql');
